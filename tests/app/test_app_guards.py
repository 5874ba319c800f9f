"""The guard helper's answers follow the texts, the recorded guards are those of the texts sent, and a tag
the guards contradict (or REVISE with nothing changed) is asked about before it is sent."""

from __future__ import annotations

import pytest

from pxp_harness.app_helpers import expert_turn, live_app, messages, rows, type_answer, wait_for
from pxp_tui.agents import tfidf
from pxp_tui.protocol import Tag
from pxp_tui.tasks import get_task

PARACETAMOL_VIA_CHLORIDE = "CC(=O)Cl.Nc1ccc(O)cc1"
CHLORIDE_REASON = "Acylation of 4-aminophenol with acetyl chloride; the amine is more nucleophilic than the phenol."
UNRELATED = "Grignard addition of methylmagnesium bromide to a ketone, then acidic workup."


@pytest.fixture(autouse=True)
def _no_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def boxes(screen) -> dict[str, bool]:
    return {name: screen.query_one(f"#guard-{name}").value for name in ("match", "agree", "changed")}


def proposal(screen) -> str:
    return str(screen.query_one("#guard-proposal").render())


def recorded(db_path, run_id: int) -> list[dict]:
    sql = """SELECT m.j, m.sender, m.tag, m.prediction, m.explanation, m.guard_match, m.guard_agree, m.guard_changed
             FROM messages m JOIN data d USING (session_id) WHERE d.run_id = ? AND d.ord = 0 ORDER BY m.j"""
    return rows(db_path, sql, (run_id,))


def guards_of_the_texts(sent: list[dict], j: int) -> dict[str, int]:
    """What the guards of message ``j`` must be, worked out from the texts the blackboard holds."""
    task = get_task("drug")
    by_j = {m["j"]: m for m in sent}
    mine, machine = by_j[j], by_j[j - 1]
    own = by_j.get(j - 2) if j > 2 else mine
    changed = j > 2 and (not task.match(mine["prediction"], own["prediction"]) or mine["explanation"] != own["explanation"])
    return {
        "guard_match": int(task.match(machine["prediction"], own["prediction"])),
        "guard_agree": int(tfidf.agree(machine["explanation"], own["explanation"])),
        "guard_changed": int(changed),
    }


async def choose(pilot, app, key: str) -> None:
    app.screen.query_one("TagChoice").focus()
    await pilot.press(key)


async def test_the_answers_follow_the_fields_and_the_recorded_guards_are_those_of_the_texts_sent(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("g")
        assert boxes(screen) == {"match": True, "agree": True, "changed": False}  # the machine's answer, prefilled
        await type_answer(pilot, app, explanation=UNRELATED)
        await wait_for(pilot, lambda: not boxes(screen)["agree"], "AGREE worked out again")
        assert "REFUTE" in proposal(screen) and "the offline checker's suggestion" in proposal(screen)
        await type_answer(pilot, app, prediction=PARACETAMOL_VIA_CHLORIDE)
        await wait_for(pilot, lambda: not boxes(screen)["match"], "MATCH worked out again")
        await choose(pilot, app, "2")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's message")
    sent = recorded(db_path, run_id)
    assert sent[1]["tag"] == "REFUTE" and sent[1]["explanation"] == UNRELATED
    assert {k: sent[1][k] for k in ("guard_match", "guard_agree", "guard_changed")} == guards_of_the_texts(sent, 2)
    assert guards_of_the_texts(sent, 2) == {"guard_match": 0, "guard_agree": 0, "guard_changed": 0}


@pytest.mark.slow
async def test_the_expert_overrides_agree_until_the_explanation_changes(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("g")
        await type_answer(pilot, app, explanation=UNRELATED)
        await wait_for(pilot, lambda: not boxes(screen)["agree"], "the checker's suggestion")
        await pilot.click("#guard-agree")  # the expert judges that it agrees after all
        await wait_for(pilot, lambda: boxes(screen)["agree"], "the expert's answer")
        assert "(agree: yours)" in proposal(screen)
        await type_answer(pilot, app, prediction=PARACETAMOL_VIA_CHLORIDE)  # not a text AGREE depends on
        await wait_for(pilot, lambda: not boxes(screen)["match"], "MATCH worked out again")  # for the new prediction
        assert boxes(screen)["agree"]  # worked out again with it: still the expert's
        await type_answer(pilot, app, explanation=UNRELATED + " Quenched with ammonium chloride.")
        await wait_for(pilot, lambda: not boxes(screen)["agree"], "the suggestion again, for the new text")
        assert "the offline checker's suggestion" in proposal(screen)
        await pilot.click("#guard-agree")
        await wait_for(pilot, lambda: boxes(screen)["agree"], "the expert's answer again")
        assert screen.query_one("#guard-match").disabled and screen.query_one("#guard-changed").disabled
        await choose(pilot, app, "2")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's message")
    sent = recorded(db_path, run_id)[1]
    assert (sent["guard_match"], sent["guard_agree"], sent["guard_changed"]) == (0, 1, 0)  # AGREE: the expert's


async def test_a_machine_adopting_the_experts_answer_is_proposed_ratify(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await choose(pilot, app, "2")
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")
        screen = await expert_turn(pilot, app, j=4)
        machine = screen.exchange.messages[-1]
        assert machine.explanation != CHLORIDE_REASON and machine.explanation.startswith(CHLORIDE_REASON)  # a suffix
        await pilot.press("g")
        assert boxes(screen) == {"match": True, "agree": True, "changed": False}
        assert screen.query_one("TagChoice").selected is Tag.RATIFY  # not REFUTE, as exact text made it
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 4, "the expert's RATIFY")
    sent = recorded(db_path, run_id)
    assert sent[3]["tag"] == "RATIFY"
    assert {k: sent[3][k] for k in ("guard_match", "guard_agree", "guard_changed")} == guards_of_the_texts(sent, 4)


async def test_ratify_over_a_prediction_of_ones_own_is_asked_about_and_records_the_guards_of_what_it_sends(db_path) -> None:
    """RATIFY sends the machine's prediction: the question says that the typed one is not sent, and the guards recorded
    are those of the texts sent (the machine's: they match)."""
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        machine = screen.exchange.messages[0]
        await pilot.press("g")
        await type_answer(pilot, app, prediction=PARACETAMOL_VIA_CHLORIDE)
        await wait_for(pilot, lambda: not boxes(screen)["match"], "MATCH worked out again")
        await choose(pilot, app, "1")  # RATIFY, though the helper says the typed prediction differs
        await pilot.press("ctrl+s")
        confirm = await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen" and app.screen, "the question")
        assert "RATIFY sends the machine's prediction" in str(confirm.query_one("#confirm-question").render())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
        assert screen.driver.human.waiting and len(messages(db_path, run_id)) == 1  # nothing sent: the engine still waits
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question again")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's RATIFY")
    sent = recorded(db_path, run_id)[1]
    assert (sent["tag"], sent["prediction"], sent["guard_match"]) == ("RATIFY", machine.prediction, 1)


async def test_revise_with_nothing_changed_says_so_and_waits_for_a_change(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await choose(pilot, app, "2")
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")
        screen = await expert_turn(pilot, app, j=4)
        await choose(pilot, app, "3")  # REVISE, the fields still hold message 2's answer
        await pilot.press("ctrl+s")
        confirm = await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen" and app.screen, "the notice")
        assert "unchanged from your message 2" in str(confirm.query_one("#confirm-question").render())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
        assert len(messages(db_path, run_id)) == 3
        await type_answer(pilot, app, explanation=CHLORIDE_REASON + " Pyridine takes up the HCl.")
        await choose(pilot, app, "3")
        await pilot.press("ctrl+s")  # changed now: sent without a question
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 4, "the expert's REVISE")
    assert recorded(db_path, run_id)[3]["tag"] == "REVISE"
