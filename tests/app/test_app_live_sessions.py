"""Whole live sessions in the app with the offline machine, checked in the blackboard afterwards."""

from __future__ import annotations

import pytest

from pxp_harness.app_helpers import expert_turn, live_app, messages, rows, run_done, session_screen, type_answer, wait_for
from pxp_harness.internals import notifications
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.curve_plot import CurvePlot
from pxp_tui.protocol import Sender, Tag, session_flags

PARACETAMOL_VIA_CHLORIDE = "CC(=O)Cl.Nc1ccc(O)cc1"
CHLORIDE_REASON = "Acylation of 4-aminophenol with acetyl chloride; the amine is more nucleophilic than the phenol."


@pytest.fixture(autouse=True)
def _pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")


def flags_in_view(db_path, run_id: int) -> list[dict]:
    return rows(
        db_path,
        "SELECT ord, stop_reason, one_way_human, one_way_machine, two_way, strong_human, strong_machine, "
        "ultra_strong_human, ultra_strong_machine FROM session_intelligibility WHERE run_id = ? ORDER BY ord",
        (run_id,),
    )


def check_flags_match_protocol(db_path, run_id: int) -> None:
    """The blackboard's per-session view agrees with the protocol's definitions on the recorded tags."""
    recorded = messages(db_path, run_id)
    for row in flags_in_view(db_path, run_id):
        tags = [(Sender(s), Tag(t)) for o, _, s, t, _ in recorded if o == row["ord"]]
        flags = session_flags(tags)
        for name in ("one_way_human", "one_way_machine", "two_way", "strong_human", "ultra_strong_machine"):
            assert bool(row[name]) == getattr(flags, name), (row["ord"], name)


async def test_ratify_path_ratifies_every_session_and_finishes_the_run(db_path) -> None:
    async with live_app(db_path) as (app, pilot, run_id):
        for order in range(2):
            screen = await expert_turn(pilot, app, j=2)
            assert screen.exchange.order == order
            await pilot.press("1", "ctrl+s")
            if order == 0:  # the chart is drawn a frame after the outcome: it shows the finished session
                plot = screen.query_one(CurvePlot).plt
                await wait_for(pilot, lambda p=plot: "intelligibility vs message bound" in p.build(), "the curve drawn")
                legend = str(screen.query_one("#metrics-legend").render())  # one ratified session: the machine's
                assert legend.endswith("1-way M = 2-way"), legend  # the machine's 1-way and 2-way on one line
        screen = session_screen(app)
        await run_done(pilot, app)
        assert "2 of 2 sessions done" in str(screen.query_one("#metrics-sessions").render())

    recorded = messages(db_path, run_id)
    assert [(o, j, s, t) for o, j, s, t, _ in recorded] == [
        (0, 1, "machine", "INIT"), (0, 2, "human", "RATIFY"), (0, 3, "machine", "RATIFY"),
        (1, 1, "machine", "INIT"), (1, 2, "human", "RATIFY"), (1, 3, "machine", "RATIFY"),
    ]  # fmt: skip
    # at j = 2 the fields start from the machine's answer: RATIFY carries it unchanged
    assert recorded[1][4] == recorded[0][4]
    assert [r["stop_reason"] for r in flags_in_view(db_path, run_id)] == ["ratified", "ratified"]
    run = rows(db_path, "SELECT status, human_kind, expert FROM runs WHERE id = ?", (run_id,))[0]
    assert run == {"status": "done", "human_kind": "live", "expert": "alice"}
    human = rows(db_path, "SELECT model FROM messages WHERE sender = 'human' LIMIT 1")[0]
    assert human["model"] == "human:alice"
    check_flags_match_protocol(db_path, run_id)


async def test_refute_then_revise_path(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")  # REFUTE, with the expert's own answer
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")

        screen = await expert_turn(pilot, app, j=4)
        machine = screen.exchange.messages[-1]
        # the offline baseline adopts the reactants the chemist gave, and says it revised
        assert machine.tag is Tag.REVISE
        assert set(machine.prediction.split(".")) == set(PARACETAMOL_VIA_CHLORIDE.split("."))
        # the fields start from the expert's own previous message
        assert app.screen.query_one("#answer-prediction").value == PARACETAMOL_VIA_CHLORIDE
        await pilot.press("3")  # REVISE: the expert changes their explanation
        await type_answer(pilot, app, explanation=CHLORIDE_REASON + " Pyridine takes up the HCl.")
        await pilot.press("ctrl+s")
        screen = await expert_turn(pilot, app, j=6)
        assert screen.exchange.messages[-1].tag is Tag.RATIFY  # the machine agrees with the revision
        app.screen.query_one("TagChoice").focus()
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)

    recorded = messages(db_path, run_id)
    human = [(j, t) for _, j, s, t, _ in recorded if s == "human"]
    assert human == [(2, "REFUTE"), (4, "REVISE"), (6, "RATIFY")]
    stored = rows(db_path, "SELECT explanation FROM messages WHERE sender = 'human' AND j = 4")[0]
    assert stored["explanation"].endswith("Pyridine takes up the HCl.")
    assert flags_in_view(db_path, run_id)[0]["stop_reason"] == "ratified"
    check_flags_match_protocol(db_path, run_id)


async def test_reject_is_refused_until_after_k_then_confirmed(db_path) -> None:
    async with live_app(db_path, k=3) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("4")  # REJECT at j = 2 <= k: refused, with the reason
        assert screen.query_one("TagChoice").selected is None
        assert any("after message 3" in note for note in notifications(app))
        await pilot.press("2")
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")

        await expert_turn(pilot, app, j=4)
        app.screen.query_one("TagChoice").focus()
        await pilot.press("4", "ctrl+s")  # allowed now, but asked first
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the REJECT confirmation")
        await pilot.press("y")
        await expert_turn(pilot, app, j=2)  # the next session

    recorded = messages(db_path, run_id)
    first = [(j, s, t) for o, j, s, t, _ in recorded if o == 0]
    assert first[-1] == (4, "human", "REJECT")
    stops = [r["stop_reason"] for r in flags_in_view(db_path, run_id)]
    assert stops[0] == "rejected"
    check_flags_match_protocol(db_path, run_id)


async def test_declining_the_reject_confirmation_sends_nothing(db_path) -> None:
    async with live_app(db_path, k=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("4", "ctrl+s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the REJECT confirmation")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
        assert screen.state is SessionState.HUMAN and screen.driver.human.waiting  # the engine still waits: nothing was sent
    assert [m[1] for m in messages(db_path, run_id)] == [1]
