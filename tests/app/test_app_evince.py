"""EVINCE in the app: a machine-machine run watched in the session screen shows each agent's distribution as
bars under its message and the session's EVINCE measures, round by round, in the metrics pane."""

from __future__ import annotations

import pytest

from pxp_harness.app_helpers import rows, session_screen, wait_for
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.shared.distribution_bars import UNSTATED, bar, bars_content
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run


def test_bars_in_eighths_and_a_reply_without_a_distribution_marked() -> None:
    assert bar(1.0, 4) == "████" and bar(0.0, 4) == "" and bar(0.5, 3) == "█▌"
    text = str(bars_content({"distribution": '{"Pneumonia": 0.25, "Atelectasis": 0.75}', "distribution_fallback": 0}))
    assert text.index("Atelectasis") < text.index("Pneumonia") and "75%" in text
    # a reply that stated none (a file of an older pxp holds a one-hot on its prediction there): no bars, a word
    unstated = str(bars_content({"distribution": '{"Pneumonia": 1.0}', "distribution_fallback": 1}))
    assert unstated == UNSTATED and "%" not in unstated
    assert bars_content({}) is None


@pytest.mark.slow
async def test_two_offline_machines_are_watched_with_their_distributions_and_measures(db_path) -> None:
    config = RunConfig(task="rad", human_kind=HumanKind.MODEL, human_model="offline", top_k=5, contentiousness=0.9, limit=1)
    with Blackboard.open(db_path) as board:
        run_id = create_run(board, config)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: (s := session_screen(app)) and s.state is SessionState.DONE and s, "the run")
        assert not screen.query_one("TagPicker").display  # the other model answers: the expert watches
        entries = [str(e.render()) for e in screen.query_one("Conversation").entries if e.has_class("entry")]
        assert entries and all("%" in e and "█" in e for e in entries)  # every message has its bars
        information = screen.query_one("#metrics-information")
        assert information.has_class("-shown")
        table = str(screen.query_one("#information-rounds").render())
        assert "Information, this session" in table and "WD" in table and "NMI" in table
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the run's summary")
        await pilot.pause()
    stored = rows(db_path, "SELECT COUNT(*) AS n FROM round_information WHERE run_id = ?", (run_id,))
    assert stored[0]["n"] == table.count("\n") - 1  # one line per stored round


@pytest.mark.slow
async def test_the_expert_steps_in_for_the_other_machine_and_hands_the_seat_back(db_path, machine_gate) -> None:
    from pxp_harness.app_helpers import expert_turn, type_answer

    machine_gate.close()  # the first machine thinks until the expert has taken the other one's seat
    config = RunConfig(task="rad", human_kind=HumanKind.MODEL, human_model="offline", top_k=5, contentiousness=0.9, limit=1)
    with Blackboard.open(db_path) as board:
        run_id = create_run(board, config)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: (s := session_screen(app)) and s.stored_run is not None and s, "the run")
        await pilot.press("t")  # take the human's seat
        await wait_for(pilot, lambda: screen.joined, "the seat taken")
        machine_gate.open()
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")  # REFUTE
        await type_answer(pilot, app, prediction="Pleural Effusion", explanation="Blunted costophrenic angle on the left.")
        machine_gate.close()  # the first machine thinks until the expert has handed the seat back
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.exchange and len(screen.exchange.messages) >= 2, "the expert's message")
        await pilot.press("t")  # hand it back before the next turn of the seat
        await wait_for(pilot, lambda: not screen.joined, "the seat handed back")
        machine_gate.open()
        await wait_for(
            pilot, lambda: screen.state is SessionState.DONE or (screen.exchange and screen.exchange.stop), "the session"
        )
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the run's summary")
        await pilot.pause()
    seat = rows(db_path, "SELECT j, tag, prediction, model FROM messages WHERE sender = 'human' ORDER BY j")
    assert seat[0]["j"] == 2 and seat[0]["model"].startswith("human:") and seat[0]["prediction"] == "Pleural Effusion"
    assert seat[0]["tag"] == "REFUTE"
    assert all(s["model"] == "pxp-offline/rad-second" for s in seat[1:])  # the other model again
