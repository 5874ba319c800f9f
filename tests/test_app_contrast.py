"""Every text the app draws reads at 4.5:1 or more against its background (WCAG AA) in the default theme, as a
256-colour terminal shows it: each colour of the rendered screen taken to the nearest of the 256 (as Rich does for
such a terminal) before the contrast is worked out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from rich.style import Style

from pxp_tui.app.shell.pxp_app import PXPApp

from .app_helpers import expert_turn, live_app, make_run, outcome_shown, wait_for
from .internals import screen_strips

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


def low_contrast(screen: Any) -> list[str]:
    """Every run of text (not blank, not a box-drawing or block character) below :data:`AA`, with its ratio."""
    found = []
    for y, strip in enumerate(screen_strips(screen)):
        for segment in strip:
            text = "".join(c for c in segment.text if not c.isspace() and not 0x2500 <= ord(c) <= 0x259F)
            if not text or segment.style is None:
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
