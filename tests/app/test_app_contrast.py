"""Every text the app draws reads at 4.5:1 or more against its background (WCAG AA) in the default theme, as a
256-colour terminal shows it: each colour of the rendered screen taken to the nearest of the 256 (as Rich does for
such a terminal) before the contrast is worked out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from rich.style import Style

from pxp_harness.app_helpers import expert_turn, live_app, make_run, outcome_shown, wait_for
from pxp_harness.internals import screen_strips
from pxp_tui.app.shell.pxp_app import PXPApp

#: WCAG AA for normal text
AA = 4.5


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def in_256(style: Style) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """The (text, background) colours of ``style`` in a 256-colour terminal (reverse applied), or None if unset."""
    if style.color is None or style.bgcolor is None:
        return None
    fg = style.color.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    bg = style.bgcolor.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    if style.reverse:
        fg, bg = bg, fg
    return (fg.red, fg.green, fg.blue), (bg.red, bg.green, bg.blue)


def unchecked_marks(screen: Any) -> set[tuple[int, int]]:
    """Where an unchecked box's X is drawn: in its background's colour on purpose (no mark), not text to read."""
    from textual.widgets import Checkbox

    return {(box.content_region.x + 1, box.content_region.y) for box in screen.query(Checkbox) if not box.value and box.display}


def low_contrast(screen: Any) -> list[str]:
    """Every run of text (not blank, not a box-drawing or block character, not an unchecked box's hidden X)
    below :data:`AA`, with its ratio."""
    from textual.screen import ModalScreen

    found, hidden = [], unchecked_marks(screen)
    # a dialog's own box: the screen under it is dimmed on purpose (it is not to be read while the dialog is up)
    box = screen.children[0].region if isinstance(screen, ModalScreen) else None
    for y, strip in enumerate(screen_strips(screen)):
        x = 0
        for segment in strip:
            x, at = x + segment.cell_length, x
            if box is not None and not box.contains(at, y):
                continue
            text = "".join(c for c in segment.text if not c.isspace() and not 0x2500 <= ord(c) <= 0x259F)
            if not text or segment.style is None or (text == "X" and (at + segment.text.index("X"), y) in hidden):
                continue
            colours = in_256(segment.style)
            if colours is None:
                continue
            ratio = contrast(*colours)
            if ratio < AA:
                found.append(f"line {y}: {segment.text.strip()!r} {ratio:.2f}:1 ({colours[0]} on {colours[1]})")
    return found


SIZES = [(80, 24), (160, 48)]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_the_start_screen_with_an_unfinished_run_reads_at_4_5_to_1(db_path: Path, size) -> None:
    make_run(db_path, limit=3)
    app = PXPApp(db_path)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.screen.query_one("#start-unfinished").option_count and app.screen.focused, "the runs")
        await pilot.pause()
        found = low_contrast(app.screen)
        assert not found, "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_the_session_and_its_outcome_read_at_4_5_to_1(db_path: Path, size) -> None:
    async with live_app(db_path, size=size, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.pause()
        found = low_contrast(screen)
        assert not found, "\n".join(found)
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
        await pilot.pause()
        found = low_contrast(screen)
        assert not found, "\n".join(found)


def reads(screen: Any) -> None:
    found = low_contrast(screen)
    assert not found, f"{type(screen).__name__}:\n" + "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_the_guard_helper_the_keys_and_the_quit_question_read_at_4_5_to_1(db_path: Path, size) -> None:
    async with live_app(db_path, size=size, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        screen.query_one("TagChoice").focus()
        await pilot.press("g")  # the guard helper's questions
        await wait_for(pilot, lambda: screen.query("Checkbox"), "the guard helper")
        await pilot.pause()
        reads(screen)
        await pilot.press("escape", "question_mark")  # the keys
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the keys")
        await pilot.pause()
        reads(app.screen)
        await pilot.press("escape", "q")  # mid-session: quitting asks first
        await wait_for(pilot, lambda: app.screen is not screen and type(app.screen).__name__ != "HelpScreen", "the question")
        await pilot.pause()
        reads(app.screen)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_the_runs_summary_reads_at_4_5_to_1(db_path: Path, size) -> None:
    async with live_app(db_path, size=size, limit=1) as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
        await pilot.press("enter")  # the run is finished: its summary
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the summary")
        await wait_for(pilot, lambda: not [w for w in app.workers if w.is_running], "the summary's reads")
        await pilot.pause()
        reads(app.screen)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_the_review_reads_at_4_5_to_1(db_path: Path, size) -> None:
    from pxp_tui.app.review.review_app import ReviewApp

    async with live_app(db_path, limit=1) as (app, pilot, _):  # a finished run to review
        await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
    review = ReviewApp(db_path)
    async with review.run_test(size=size) as pilot:
        for screen, key in (("ReviewScreen", "enter"), ("SessionsScreen", "enter"), ("ReplayScreen", None)):
            await wait_for(pilot, lambda s=screen: type(review.screen).__name__ == s, f"the {screen}")
            await wait_for(pilot, lambda: not [w for w in review.workers if w.is_running], f"the {screen}'s reads")
            if screen != "ReplayScreen":
                await wait_for(pilot, lambda: review.screen.query_one("DataTable").row_count, f"the {screen}'s rows")
            await pilot.pause()
            reads(review.screen)
            if key:
                await pilot.press(key)
