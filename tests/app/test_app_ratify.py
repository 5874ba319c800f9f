"""RATIFY agrees with the machine: it sends the machine's prediction and explanation as the machine wrote them,
whatever the answer fields hold; fields the expert edited this turn make it ask first, and a SMILES pasted there
that is over the limit does not hold it up."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown, rows, type_answer, wait_for
from pxp_tui.app.session.screen import RATIFY_OVER_EDITS
from pxp_tui.app.shared.confirm import ConfirmScreen

from .test_app_guards import CHLORIDE_REASON, PARACETAMOL_VIA_CHLORIDE
from .test_smiles_limits import CHAIN


def sent(db_path: Path, j: int) -> dict:
    (row,) = rows(db_path, "SELECT tag, prediction, explanation FROM messages WHERE j = ? ORDER BY session_id LIMIT 1", (j,))
    return row


def question(app) -> str:
    return str(app.screen.query_one("#confirm-question").render()) if isinstance(app.screen, ConfirmScreen) else ""


async def test_ratify_at_message_4_sends_the_machines_words_not_the_experts_earlier_ones(db_path: Path) -> None:
    """The fields start from the expert's own REFUTE; the machine revised at 3: RATIFY agrees with message 3."""
    async with live_app(db_path, limit=1) as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")  # REFUTE with the expert's own answer
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")
        screen = await expert_turn(pilot, app, j=4)
        machine = screen.exchange.messages[2]
        assert screen.query_one("#answer-prediction", Input).value == PARACETAMOL_VIA_CHLORIDE  # the own answer, prefilled
        assert machine.explanation != CHLORIDE_REASON
        await pilot.press("1", "ctrl+s")  # nothing edited this turn: no question
        await wait_for(pilot, lambda: len(screen.exchange.messages) >= 4, "the RATIFY stored")
    ratify = sent(db_path, 4)
    assert (ratify["tag"], ratify["prediction"], ratify["explanation"]) == ("RATIFY", machine.prediction, machine.explanation)


async def test_ratify_over_an_edited_explanation_asks_first_and_keeps_the_edit_on_no(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        machine = screen.exchange.messages[0]
        await type_answer(pilot, app, explanation="My own reading.")
        await pilot.press("escape", "1", "ctrl+s")  # from the field back to the tags, RATIFY, send
        await wait_for(pilot, lambda: RATIFY_OVER_EDITS in question(app), "the question")
        await pilot.press("n")  # back to the answer: nothing sent, the edit kept
        await wait_for(pilot, lambda: app.screen is screen, "the answer again")
        assert len(screen.exchange.messages) == 1 and screen.query_one("#answer-explanation").text == "My own reading."
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: RATIFY_OVER_EDITS in question(app), "the question again")
        await pilot.press("y")
        await outcome_shown(pilot, app)
    ratify = sent(db_path, 2)
    assert (ratify["tag"], ratify["prediction"], ratify["explanation"]) == ("RATIFY", machine.prediction, machine.explanation)


async def test_an_over_limit_smiles_pasted_before_does_not_hold_up_a_ratify(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        machine = screen.exchange.messages[0]
        await pilot.press("2")
        field = screen.query_one("#answer-prediction", Input)
        field.focus()
        field.post_message(events.Paste(f"CCO.{CHAIN}"))
        check = screen.query_one("#prediction-check")
        await wait_for(pilot, lambda: "too large" in str(check.render()), "the field's verdict")
        await pilot.press("escape", "1", "ctrl+s")  # back to the tags, RATIFY, send
        await wait_for(pilot, lambda: RATIFY_OVER_EDITS in question(app), "the question")
        await pilot.press("y")
        await outcome_shown(pilot, app)
    ratify = sent(db_path, 2)
    assert (ratify["tag"], ratify["prediction"]) == ("RATIFY", machine.prediction)
