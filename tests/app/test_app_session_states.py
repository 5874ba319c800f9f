"""The session screen's states as the expert meets them: a screen left for another run is leaving, and shows
nothing its engine reports afterwards."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.app_helpers import expert_turn, live_app, rows, session_screen, wait_for
from pxp_tui.app.session.states import SessionState


async def test_a_new_run_started_over_an_open_session_leaves_it_and_drops_what_its_engine_reports(
    db_path: Path, machine_gate
) -> None:
    """The expert starts another run while the machine thinks: the open session's screen is leaving (its run paused,
    resumable), and the cancellation its engine reports afterwards changes nothing on it."""
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        first = await expert_turn(pilot, app, j=2)
        machine_gate.close()
        await pilot.press("1", "ctrl+s")  # RATIFY: the machine's message 3 is asked
        await wait_for(pilot, lambda: machine_gate.held, "the machine thinking")
        app.action_new_run()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StartScreen", "the start screen")
        await pilot.press("ctrl+s")  # start the new run
        await wait_for(pilot, lambda: session_screen(app) is not first and session_screen(app) is not None, "the new run")
        assert first.state is SessionState.LEAVING and not first.engine.is_running
        machine_gate.open()  # the first run's call, cancelled, comes back to nobody
        await pilot.pause()
        assert first.state is SessionState.LEAVING  # its engine's last report (cancelled) was not shown
        assert "Cancelled" not in str(first.query_one("#picker-head").render())
    (status,) = rows(db_path, "SELECT status FROM runs WHERE id = ?", (run_id,))
    assert status["status"] == "paused"
