"""Snapshots of a session's outcome and of the run's summary at 80x24 and 160x48 (`--snapshot-update` to accept).

Deterministic: pictures off, fixed latency and durations, a blackboard in the working directory (so the
commands to copy carry no temporary path).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.app_helpers import expert_turn, make_run, outcome_shown, run_done, settled, wait_for
from pxp_tui.app.session import summary
from pxp_tui.app.session.widgets import machine_pane
from pxp_tui.app.shell.pxp_app import PXPApp

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setattr(machine_pane, "latency_text", lambda ms: "12 ms")
    monkeypatch.setattr(summary, "duration_text", lambda seconds: "42 s")
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("size", SIZES)
def test_the_outcome_of_a_ratified_session(snap_compare, size) -> None:
    run_id = make_run(Path("sessions.db"))

    async def ready(pilot) -> None:
        await expert_turn(pilot, pilot.app, j=2)
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, pilot.app)
        await settled(pilot)

    assert snap_compare(PXPApp(Path("sessions.db"), run_id=run_id), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES)
def test_the_summary_of_a_finished_run(snap_compare, size) -> None:
    run_id = make_run(Path("sessions.db"))

    async def ready(pilot) -> None:
        app = pilot.app
        for _ in range(2):
            await expert_turn(pilot, app, j=2)
            await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)
        shown = lambda: (q := app.screen.query("#summary-sessions")) and "done" in str(q.first().render())  # noqa: E731
        await wait_for(pilot, shown, "the summary")
        await settled(pilot)

    assert snap_compare(PXPApp(Path("sessions.db"), run_id=run_id), terminal_size=size, run_before=ready)
