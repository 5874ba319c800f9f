"""Snapshots of the picture full-screen at 80x24 (pytest-textual-snapshot; `--snapshot-update` to accept).

Unlike the other snapshots, these draw the pictures (half-cell blocks, as in tmux): the picture is
what they are about. They depend on Pillow's resampling (the X-ray) and on RDKit's 2D layout (the
molecule): a new version of either may need the snapshots accepted again, after a look.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.app_helpers import expert_turn, make_run, settled, wait_for
from pxp_tui.app.picture.viewer import PictureScreen
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.shell.pxp_app import PXPApp


@pytest.fixture(autouse=True)
def _half_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")


async def full_screen(pilot) -> PictureScreen:
    """The expert's first turn, then f: the viewer."""
    app = pilot.app
    await expert_turn(pilot, app, j=2)
    await pilot.press("f")
    return await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")


def test_an_xray_zoomed_in_at_80x24(snap_compare, db_path: Path) -> None:
    async def ready(pilot) -> None:
        viewer = await full_screen(pilot)
        await pilot.press("plus", "plus", "right")
        picture = viewer.query_one(Picture)
        await wait_for(
            pilot, lambda: viewer.shown_view == viewer.view and picture.image_size == viewer.shown[1], "the zoomed crop"
        )
        await settled(pilot)

    app = PXPApp(db_path, run_id=make_run(db_path, task="rad"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_a_molecule_full_screen_at_80x24(snap_compare, db_path: Path) -> None:
    async def ready(pilot) -> None:
        viewer = await full_screen(pilot)
        await wait_for(pilot, lambda: viewer.query(".picture-cells"), "the molecule")
        await settled(pilot)

    app = PXPApp(db_path, run_id=make_run(db_path, task="drug"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)
