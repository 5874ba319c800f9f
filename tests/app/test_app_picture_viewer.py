"""The picture full-screen: opened with f or a click, zoom and pan on the original X-ray, escape goes back.

Also: molecules drawn in braille in the session at half-cell size, and the key in help.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from pxp_harness.app_helpers import expert_turn, live_app, wait_for
from pxp_harness.internals import forward_event, screen_lines
from pxp_tui.app.picture.viewer import PictureScreen
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.review import ReviewApp
from pxp_tui.app.review.replay_screen import ReplayScreen
from pxp_tui.app.session.screen import SessionScreen
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.app.shell.keys import key_rows
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run
from pxp_tui.runs.execute import execute

PHANTOM = (256, 256)  # the RAD demo's phantoms


async def drawn(pilot, screen: PictureScreen):
    """Wait until the viewer shows its current view; (box of the original, size given to the renderer, pixels shown)."""
    picture = screen.query_one(Picture)

    def done() -> bool:
        return screen.shown is not None and screen.shown_view == screen.view and picture.image_size == screen.shown[1]

    await wait_for(pilot, done, "the crop drawn")
    assert picture.surface is not None and screen.shown is not None
    return screen.shown[0], screen.shown[1], picture.surface.pixels


async def open_viewer(pilot, app, how: str = "key") -> PictureScreen:
    await expert_turn(pilot, app, j=2)
    if how == "key":
        await pilot.press("f")
    else:
        await wait_for(pilot, lambda: app.screen.query("#instance-picture .picture-image"), "the X-ray drawn")
        await pilot.click("#instance-picture")
    return await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")


@pytest.mark.slow
@pytest.mark.parametrize("renderer", ["sixel", "tgp"])
async def test_where_the_terminal_draws_pixels_zoom_steps_are_exact_scales(db_path: Path, monkeypatch, renderer: str) -> None:
    """In pixels, the steps are the fit and exact scales (each image pixel a whole number of screen pixels): two
    steps in, the status names the scale and the crop is drawn at it, unscaled by the terminal."""
    monkeypatch.setenv("PXP_IMAGES", renderer)
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        _, _, pixels = await drawn(pilot, viewer)
        fit = min(pixels[0] / PHANTOM[0], pixels[1] / PHANTOM[1])
        steps = sorted({fit, *(s for s in (1 / 4, 1 / 3, 1 / 2, 1, 2, 3, 4, 6, 8) if s >= min(fit, 1))})
        scale = [s for s in steps if s > fit * (1 + 1e-9)][1]
        await pilot.press("plus", "plus")
        box, size, _ = await drawn(pilot, viewer)
        named = f"{scale:g}:1" if scale >= 1 else f"1:{round(1 / scale)}"
        assert named in str(viewer.query_one("#viewer-status").render())
        shown = ((box[2] - box[0]) * scale, (box[3] - box[1]) * scale)
        assert shown[0] <= size[0] and shown[1] <= size[1]  # drawn at the scale, black around where it is smaller
        assert size[0] - shown[0] < pixels[0] / 100 * 2 + scale and size[1] - shown[1] < pixels[1] / 30 * 2 + scale


@pytest.mark.parametrize("renderer", ["halfcell", pytest.param("unicode", marks=pytest.mark.slow)])
async def test_f_shows_the_xray_full_screen_and_zoom_and_pan_crop_the_original(db_path: Path, monkeypatch, renderer: str) -> None:
    """In cells (half-cell blocks, unicode) no scale is exact: the zoom's steps are plain levels of the fit."""
    monkeypatch.setenv("PXP_IMAGES", renderer)
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        box, size, pixels = await drawn(pilot, viewer)
        assert box == (0, 0, *PHANTOM)  # the whole X-ray at first
        assert size[1] == pixels[1] and size[0] <= pixels[0]  # as large as the screen allows, its shape kept
        assert viewer.query_one(Picture).region.width == 100  # the terminal's full width

        await pilot.press("plus", "plus")  # zoom 2: half the width and height of the original
        box2, size2, _ = await drawn(pilot, viewer)
        assert viewer.view.zoom == 2
        assert box2[3] - box2[1] == pytest.approx(PHANTOM[1] / 2, abs=1)
        assert size2[1] == pixels[1]  # the crop is scaled up to the pixels shown: the original's detail
        assert "zoom 2×" in str(viewer.query_one("#viewer-status").render())

        await pilot.press("down")  # a quarter of the region down
        box3, _, _ = await drawn(pilot, viewer)
        assert box3[1] - box2[1] == pytest.approx((box2[3] - box2[1]) / 4, abs=1) and box3[0] == box2[0]
        await pilot.press("k", "k", "k", "k")  # up, to the top edge and no further
        top, _, _ = await drawn(pilot, viewer)
        assert top[1] == 0 and top[3] - top[1] == box2[3] - box2[1]

        await pilot.press("0")
        box4, _, _ = await drawn(pilot, viewer)
        assert box4 == (0, 0, *PHANTOM) and viewer.view.zoom == 1


async def test_escape_returns_to_the_session_with_the_focus_where_it_was(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        # the picker takes the focus just after the turn begins (a deferred focus): wait for it
        focused = await wait_for(pilot, lambda: isinstance(app.focused, TagChoice) and app.focused, "the tag picker's focus")
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, PictureScreen), "the viewer")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), "the session again")
        assert app.focused is focused
        await pilot.press("2")  # the tag keys work at once
        assert focused.selected is not None and focused.selected.value == "REFUTE"


async def test_a_click_on_the_picture_opens_it_and_the_mouse_zooms_and_drags(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app, how="click")
        await drawn(pilot, viewer)
        wheel = events.MouseScrollUp(None, 50, 10, 0, 0, 0, False, False, False, screen_x=50, screen_y=10)
        forward_event(viewer, wheel)  # as the driver delivers it (Pilot has no wheel)
        await wait_for(pilot, lambda: viewer.view.zoom == 1.5, "the wheel zooming in")
        await pilot.press("plus", "plus")
        assert viewer.view.zoom == 3
        box, _, _ = await drawn(pilot, viewer)
        await pilot.mouse_down("#viewer-picture", offset=(50, 14))
        await pilot.hover("#viewer-picture", offset=(40, 14))  # dragged 10 cells left: the view moves right
        await pilot.mouse_up("#viewer-picture", offset=(40, 14))
        moved, _, _ = await drawn(pilot, viewer)
        assert moved[0] > box[0] and moved[1] == box[1]


async def test_a_molecule_is_drawn_for_the_whole_screen_and_tab_shows_the_reaction(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (80, 24), task="drug") as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        inline = app.screen.query_one("#instance-picture", Picture)
        await wait_for(pilot, lambda: inline.query(".picture-cells"), "the target drawn in braille")
        assert "OH" in str(inline.query_one(".picture-cells").render())
        await pilot.press("f")
        viewer = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")
        picture = viewer.query_one(Picture)
        await wait_for(pilot, lambda: picture.query(".picture-cells"), "the molecule full-screen")
        assert (
            picture.surface is not None and picture.surface.cols == 80 and picture.surface.rows == 21
        )  # all but the title, the status line and the keys
        text = str(picture.query_one(".picture-cells").render())
        assert "OH" in text and "O" in text and ("NH" in text or "HN" in text)
        await pilot.press("plus")
        assert viewer.view.zoom == 1  # molecules are redrawn, not zoomed
        await pilot.press("tab")
        await wait_for(pilot, lambda: "→" in str(picture.query_one(".picture-cells").render()), "the reaction")
        await pilot.press("f")  # f again leaves the full-screen picture
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), "the session again")
        assert app.is_running


async def replay_viewer(db_path: Path, pilot) -> PictureScreen:
    app = pilot.app
    await wait_for(pilot, lambda: app.screen.query("#runs-table") and app.screen.query_one("#runs-table").row_count, "runs")
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: app.screen.query("#sessions-table") and app.screen.query_one("#sessions-table").row_count, "sessions"
    )
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#instance-picture"), "the replay")
    await pilot.press("f")
    return await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")


async def test_the_replay_opens_the_picture_full_screen_too(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    with Blackboard.open(db_path) as board:
        await execute(board, create_run(board, RunConfig(task="rad", limit=1)))
    async with ReviewApp(db_path).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        viewer = await replay_viewer(db_path, pilot)
        await drawn(pilot, viewer)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay again")


async def test_the_picture_keys_are_listed_with_their_ids(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        rows = {row.id: row for row in key_rows(app, app.screen)}
        assert rows["session.picture"].keys == "f" and rows["session.open_picture"].keys == "v"
        await pilot.press("f")
        viewer = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")
        ids = {row.id for row in key_rows(app, viewer)}
        assert {"viewer.zoom_in", "viewer.zoom_out", "viewer.fit", "viewer.actual", "viewer.close", "viewer.open_picture"} <= ids


async def test_the_way_back_is_shown_first_and_whole_at_80_columns(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (80, 24), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        await drawn(pilot, viewer)
        footer = screen_lines(app.screen)[-1]  # the footer's keys, the way back first
        assert footer.lstrip().startswith("esc Back")
