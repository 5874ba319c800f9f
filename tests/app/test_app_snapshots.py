"""Snapshots of the main screens at 80x24 and 160x48 (pytest-textual-snapshot; `--snapshot-update` to accept).

Deterministic: pictures off (their pixels depend on the RDKit and Pillow versions; the Pilot tests check
they are drawn), a fixed name on the start screen, fixed latency text, and no spinner in view.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.app_helpers import expert_turn, make_run, settled, wait_for
from pxp_tui.app.session.widgets import machine_pane
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start import screen as start

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setattr(start, "default_name", lambda: "alice")
    monkeypatch.setattr(machine_pane, "latency_text", lambda ms: "12 ms")


@pytest.mark.parametrize("size", SIZES)
def test_start_screen(snap_compare, db_path: Path, size) -> None:
    async def ready(pilot) -> None:
        await wait_for(pilot, lambda: pilot.app.screen.query("#start-unfinished Option, #start-unfinished"), "start")
        await settled(pilot)

    assert snap_compare(PXPApp(db_path), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES)
def test_drug_session_at_the_experts_first_turn(snap_compare, db_path: Path, size) -> None:
    run_id = make_run(db_path)

    async def ready(pilot) -> None:
        await expert_turn(pilot, pilot.app, j=2)
        await settled(pilot)

    assert snap_compare(PXPApp(db_path, run_id=run_id), terminal_size=size, run_before=ready)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_metrics_view_after_two_sessions(snap_compare, db_path: Path, size) -> None:
    run_id = make_run(db_path, limit=3)

    async def ready(pilot) -> None:
        app = pilot.app
        for _ in range(2):
            await expert_turn(pilot, app, j=2)
            await pilot.press("1", "ctrl+s")
        await expert_turn(pilot, app, j=2)
        await pilot.press("m")
        await settled(pilot)

    assert snap_compare(PXPApp(db_path, run_id=run_id), terminal_size=size, run_before=ready)
