"""The reading tools of the full-screen X-ray: window/level and invert map grey values as the bottom line says,
1:1 gives the terminal the original's pixels unscaled, fit shows it whole; the keys are the same from the
session and the replay, in help and the footer; a small X-ray opens full-screen by itself once a run, never over
the machine's message; where pixels cannot
be drawn (tmux 3.3) the header says so, with what to do instead."""

from __future__ import annotations

import re
from pathlib import Path

import numpy
import pytest

from pxp_harness.app_helpers import expert_turn, live_app, session_screen, wait_for
from pxp_tui.app.picture import graphics
from pxp_tui.app.picture.viewer import PictureScreen
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.review import ReviewApp
from pxp_tui.app.session.screen import SessionScreen
from pxp_tui.app.shell.keys import key_rows
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run
from pxp_tui.runs.execute import execute

from .test_app_picture_viewer import drawn, open_viewer, replay_viewer

TOOL_IDS = {
    "viewer.fit", "viewer.actual", "viewer.zoom_in", "viewer.zoom_out", "viewer.brighter", "viewer.darker",
    "viewer.more_contrast", "viewer.less_contrast", "viewer.invert", "viewer.reset_tone",
}  # fmt: skip


async def sent(pilot, viewer: PictureScreen):
    """The grey levels of the image the viewer gives the terminal now (its current view and tone), and the status."""
    await drawn(pilot, viewer)
    await wait_for(pilot, lambda: viewer.shown_tone == viewer.tone, "the tone drawn")
    widget = viewer.query_one("#viewer-picture .picture-image")
    return numpy.asarray(widget.image.convert("L")).astype(int), str(viewer.query_one("#viewer-status").render())


def window(status: str) -> tuple[float, float]:
    """(low, high) of the window the status line states (``W 204 L 128``)."""
    found = re.search(r"W (\d+) L ([\d.]+)", status)
    assert found, status
    width, level = int(found[1]), float(found[2])
    return level - width / 2, level + width / 2


async def test_window_level_and_invert_map_grey_values_as_the_status_line_states(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "sixel")  # the image given to the terminal is the one the tools made
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        plain, status = await sent(pilot, viewer)
        assert "W 255 L 127.5" in status and "inverted" not in status

        await pilot.press("right_curly_bracket")  # brighter: the window 16 grey levels down
        brighter, status = await sent(pilot, viewer)
        assert "W 255 L 111.5" in status
        assert (brighter == numpy.clip(plain + 16, 0, 255)).all()

        await pilot.press("full_stop", "full_stop")  # more contrast: a narrower window about the same level
        contrast, status = await sent(pilot, viewer)
        low, high = window(status)
        assert high - low < 255 / 1.5
        expected = numpy.clip(numpy.round((plain - low) * 255 / (high - low)), 0, 255)
        assert numpy.abs(contrast - expected).max() <= 1  # (the window's ends are whole grey levels)
        assert (contrast == 0).sum() > (plain == 0).sum() and (contrast == 255).sum() > (plain == 255).sum()

        await pilot.press("i")
        inverted, status = await sent(pilot, viewer)
        assert "inverted" in status and (inverted == 255 - contrast).all()

        await pilot.press("d")  # the window reset: the image as it is
        again, status = await sent(pilot, viewer)
        assert "W 255 L 127.5" in status and "inverted" not in status and (again == plain).all()


async def test_one_to_one_gives_the_terminal_the_originals_pixels_unscaled_in_whole_cells(db_path: Path, monkeypatch) -> None:
    from io import BytesIO

    from PIL import Image

    monkeypatch.setenv("PXP_IMAGES", "sixel")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        fitted, _ = await sent(pilot, viewer)
        original = Image.open(BytesIO(viewer.pxp_task.original_picture(viewer.instance))).convert("L")
        assert fitted.shape[0] > original.height  # fit: the 256-pixel phantom scaled up to the screen's height

        await pilot.press("z")
        actual, status = await sent(pilot, viewer)
        assert status.startswith("1:1")
        surface = viewer.query_one(Picture).surface
        assert surface is not None
        cell = (surface.pixels[0] // surface.cols, surface.pixels[1] // surface.rows)
        assert actual.shape[0] % cell[1] == 0 and actual.shape[1] % cell[0] == 0  # whole cells: the terminal scales nothing
        (left, top, right, bottom), _ = viewer.shown
        rows, cols = actual.shape
        dy, dx = (rows - (bottom - top)) // 2, (cols - (right - left)) // 2
        source = numpy.asarray(original.crop((left, top, right, bottom))).astype(int)
        assert (actual[dy : dy + bottom - top, dx : dx + right - left] == source).all()  # the original's own pixels
        assert (right - left, bottom - top) == original.size  # the whole phantom fits at 1:1 here

        # the widget is given the image's own size in cells (textual-image fits an image of auto size to its frame:
        # the 256-pixel phantom filled the frame, 2.5 times its size, under a status line saying 1:1)
        shown = viewer.query_one("#viewer-picture .picture-image")
        assert (shown.size.width * cell[0], shown.size.height * cell[1]) == (cols, rows)

        await pilot.press("plus")  # the next step: 2:1, each of the original's pixels two by two
        zoomed, status = await sent(pilot, viewer)
        assert status.startswith("2:1")
        (left, top, right, bottom), _ = viewer.shown
        rows, cols = zoomed.shape
        dy, dx = (rows - 2 * (bottom - top)) // 2, (cols - 2 * (right - left)) // 2
        twice = numpy.asarray(original.crop((left, top, right, bottom)).resize((2 * (right - left), 2 * (bottom - top)), 0))
        assert (zoomed[dy : dy + 2 * (bottom - top), dx : dx + 2 * (right - left)] == twice).all()
        await pilot.press("0")
        again, status = await sent(pilot, viewer)
        assert again.shape == fitted.shape and status.startswith("fit")


async def test_the_tools_keys_are_the_same_from_the_session_and_the_replay_in_help_and_footer(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):
        session_keys = {(row.id, row.keys, row.description) for row in key_rows(app, await open_viewer(pilot, app))}
        footer = " ".join(str(key.render()) for key in app.screen.query("FooterKey"))
    with Blackboard.open(db_path) as board:
        await execute(board, create_run(board, RunConfig(task="rad", limit=1)))
    async with ReviewApp(db_path).run_test(size=(100, 30)) as pilot:
        viewer = await replay_viewer(db_path, pilot)
        replay_keys = {(row.id, row.keys, row.description) for row in key_rows(pilot.app, viewer)}
    tools = {row for row in session_keys if row[0] in TOOL_IDS}
    assert {row[0] for row in tools} == TOOL_IDS
    assert tools <= replay_keys
    for _, keys, _ in tools:  # every tool in the footer, by its key
        assert keys.split(",")[0].strip() in footer
    # no key of a tool is bound to anything else on the picture's screen
    bound: dict[str, set[str]] = {}
    for row_id, keys, _ in session_keys:
        for key in keys.split(","):
            bound.setdefault(key.strip(), set()).add(row_id)
    assert all(len(bound[key.strip()]) == 1 for _, keys, _ in tools for key in keys.split(","))


async def test_a_small_xray_opens_full_screen_by_itself_once_and_never_over_the_machines_message(
    db_path: Path, monkeypatch, machine_gate
) -> None:
    from pxp_harness.internals import notifications
    from pxp_tui.app.picture.instance_view import BACK_FOR_THE_MESSAGE

    monkeypatch.setenv("PXP_FULL_SCREEN", "auto")
    monkeypatch.setenv("PXP_IMAGES", "halfcell")  # 80x24 in half-cell blocks: the pane gives about 30 pixels
    machine_gate.close()  # the machine thinks: the X-ray is read full-screen meanwhile
    async with live_app(db_path, (80, 24), task="rad") as (app, pilot, _):
        viewer = await wait_for(
            pilot,
            lambda: app.screen if isinstance(app.screen, PictureScreen) and app.screen.query(Picture) else None,
            "full-screen",
        )
        await drawn(pilot, viewer)
        machine_gate.open()  # its message: the session is shown again, the message in it, and why
        screen = await expert_turn(pilot, app, j=2)
        assert isinstance(app.screen, SessionScreen)
        assert BACK_FOR_THE_MESSAGE in notifications(app)
        machine_gate.close()  # the next instance's X-ray is drawn before its machine's message, as small
        await pilot.press("x")  # skip this one: the next session starts at once
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the skip's question")
        await pilot.press("y")
        picture = screen.query_one("#instance-picture", Picture)
        await wait_for(pilot, lambda: screen.exchange.order == 1 and machine_gate.held, "the next session, its machine thinking")
        await wait_for(pilot, lambda: picture.shown_on, "the next X-ray shown")  # shown_on: emptied by the new instance's show
        await pilot.pause()
        assert app.screen is screen  # not opened by itself again: the expert's own f opens it
        machine_gate.open()
        await expert_turn(pilot, app, j=2)
    monkeypatch.setenv("PXP_IMAGES", "sixel")  # 160x48 in Sixel (cells of 10x20 pixels): hundreds of pixels
    machine_gate.close()
    async with live_app(db_path.with_name("large.db"), (160, 48), task="rad") as (app, pilot, _):
        screen = await wait_for(pilot, lambda: session_screen(app), "the session")
        picture = screen.query_one("#instance-picture", Picture)
        await wait_for(pilot, lambda: picture.image_size is not None and not picture.busy, "the X-ray drawn")
        assert picture.surface is not None and picture.surface.pixels[1] >= 200
        assert isinstance(app.screen, SessionScreen)
        machine_gate.open()
        await expert_turn(pilot, app, j=2)
        assert isinstance(app.screen, SessionScreen)


async def test_an_xray_drawn_after_the_machines_message_stays_in_the_pane(db_path: Path, monkeypatch) -> None:
    """The offline demo's machine answers about as the X-ray is drawn: whichever comes first, the expert's turn shows
    the session with the machine's message, never the X-ray over it."""
    monkeypatch.setenv("PXP_FULL_SCREEN", "auto")
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    async with live_app(db_path, (80, 24), task="rad") as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        picture = screen.query_one("#instance-picture", Picture)
        await wait_for(pilot, lambda: picture.surface is not None and not picture.busy, "the X-ray drawn")
        await pilot.pause()
        assert app.screen is screen  # the machine's message in view, the X-ray in its pane


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.3a"},
            "tmux 3.3a passes no pictures",
        ),
        ({"TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.5a"}, "built without Sixel"),
        ({}, "This terminal shows no pictures"),
    ],
)
def test_where_pixels_cannot_be_drawn_the_note_says_why_and_what_to_do(monkeypatch, env, said) -> None:
    monkeypatch.setenv("PXP_IMAGES", "auto")
    monkeypatch.setattr(graphics, "drawn_by", lambda: "halfcell")
    note = graphics.coarse_note(env)
    assert note is not None and said in note
    assert "v opens the original" in note and "pxp serve" in note and "Sixel" in note
    monkeypatch.setattr(graphics, "drawn_by", lambda: "sixel")
    assert graphics.coarse_note(env) is None  # pixels: nothing to say


def test_in_a_kitty_too_old_for_its_pictures_the_note_names_it_and_what_to_do(monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "auto")
    monkeypatch.setattr(graphics, "drawn_by", lambda: "halfcell")
    note = graphics.coarse_note({}, kitty="0.26.5")
    assert note is not None and note.startswith("kitty 0.26.5 cannot show pxp's pictures (they need kitty 0.28+)")
    assert "v opens the original" in note and "pxp serve" in note
    assert graphics.old_kitty("kitty(0.26.5)") == "0.26.5"
    assert graphics.old_kitty("kitty(0.28.0)") is None and graphics.old_kitty("WezTerm 20240203") is None
