"""The look: translucent dialogs, one tag palette in the session and the review, the theme kept between
launches, and nothing cut at 80x24 (header, footers, guard helper, the start screen's review button)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Checkbox, DataTable

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown, run_done, settled, wait_for
from pxp_harness.internals import FooterKey
from pxp_tui.app.review.review_app import ReviewApp
from pxp_tui.app.shared.look import settings_path
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.protocol import Tag


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def text_of(widget: Widget) -> str:
    """What the widget shows, line by line (its rendered strips)."""
    width, height = widget.size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


def colour_of(widget: Widget, text: str) -> str:
    """The foreground colour (hex) the widget draws ``text`` in."""
    width, height = widget.size
    for strip in widget.render_lines(Region(0, 0, width, height)):
        for segment in strip:
            if text in segment.text and segment.style is not None and segment.style.color is not None:
                return segment.style.color.get_truecolor().hex
    raise AssertionError(f"{text!r} not drawn by {widget}")


def footer_fits(screen) -> None:
    """Every key the footer shows lies inside the screen, with its key and a word of what it does (``n ? q`` said
    nothing), the app's keys (the keys' list, quit) among them."""
    keys = [key for key in screen.query(FooterKey) if key.display]  # hidden keys (not active now) are not shown
    assert keys, "the footer shows keys"
    for key in keys:
        assert key.region.width > 0 and key.region.right <= screen.size.width, (key.key_display, key.description)
        assert key.description and str(key.render()).strip() == f"{key.key_display} {key.description}", str(key.render())
    actions = {key.action.removeprefix("app.") for key in keys}
    offered = {active.binding.action.removeprefix("app.") for active in screen.active_bindings.values() if active.binding.show}
    assert {"quit", "help"} & offered <= actions  # the app's keys are the last to go
    placed = sorted(keys, key=lambda key: key.region.x)
    for left, right in itertools.pairwise(placed):  # none drawn over another (the palette's key sits at the right)
        assert left.region.right <= right.region.x, (left.key_display, right.key_display)


async def test_the_theme_chosen_is_kept_for_the_next_launch(db_path: Path) -> None:
    app = PXPApp(db_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        app.theme = "nord"  # what ctrl+p, "Change theme" does
        await wait_for(pilot, lambda: settings_path().is_file(), "the settings file")
    assert json.loads(settings_path().read_text())["theme"] == "nord"
    for again in (PXPApp(db_path), ReviewApp(db_path)):  # the next launch, and the review
        async with again.run_test() as pilot:
            await pilot.pause()
            assert again.theme == "nord"


async def test_a_broken_settings_file_means_the_default_theme(db_path: Path) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text("{not json")
    app = PXPApp(db_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"


@pytest.mark.slow
async def test_a_tag_has_the_same_colour_in_the_session_and_the_review(db_path: Path) -> None:
    session_colours = {}
    async with live_app(db_path, limit=1) as (app, pilot, _run_id):
        app.theme = "gruvbox"
        session = await expert_turn(pilot, app, j=2)
        await pilot.pause()
        choice = session.query_one("TagChoice")
        for tag in (Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT):
            session_colours[tag] = colour_of(choice, tag.value)
        session_colours[Tag.INIT] = colour_of(session.query_one("#machine-head"), "INIT")
        await pilot.press("2", "ctrl+s")  # REFUTE: the machine then REVISEs or REFUTEs
        await expert_turn(pilot, app, j=4)
        session.query_one("TagChoice").focus()
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)  # past the session's outcome
    assert len(set(session_colours.values())) == 5, "five distinct colours"
    review = ReviewApp(db_path)  # the theme is kept: gruvbox again
    async with review.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: review.screen.query(DataTable) and review.screen.query_one(DataTable).row_count)
        await pilot.press("enter")
        table = await wait_for(
            pilot, lambda: review.screen.query("#sessions-table") and review.screen.query_one("#sessions-table")
        )
        await wait_for(pilot, lambda: table.row_count, "the sessions")
        assert review.theme == "gruvbox"
        table.cursor_type = "none"  # the glyphs' own colours, not the cursor's
        await pilot.pause()
        glyphs = {Tag.INIT: "•", Tag.RATIFY: "✓", Tag.REFUTE: "✗"}
        for tag, glyph in glyphs.items():
            assert colour_of(table, glyph) == session_colours[tag], tag


async def test_dialogs_are_translucent_over_the_session(db_path: Path) -> None:
    async with live_app(db_path, k=1) as (app, pilot, _run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("4", "ctrl+s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the REJECT confirmation")
        assert 0 < app.screen.styles.background.a < 1  # the session shows through
        await pilot.press("n")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        assert 0 < app.screen.styles.background.a < 1


@pytest.mark.slow
async def test_nothing_is_cut_at_80x24(db_path: Path) -> None:
    async with live_app(db_path, size=(80, 24)) as (app, pilot, run_id):
        session = await expert_turn(pilot, app, j=2)

        def header_says_the_turn() -> str | None:  # Textual's Header shows a new title at its next refresh
            header = text_of(session.query_one("HeaderTitle"))
            return header if "message 2 of 10" in header else None

        header = await wait_for(pilot, header_says_the_turn, "the header's message 2 of 10")
        assert f"run {run_id}" in header
        await settled(pilot)  # the footer shows this turn's keys a frame after the turn
        footer_fits(session)
        session.query_one("TagChoice").focus()
        await pilot.press("g")
        await pilot.pause()
        from pxp_tui.app.session.widgets.guard_helper import QUESTIONS

        boxes = list(session.query(Checkbox))
        for box, question in zip(boxes, QUESTIONS.values(), strict=True):
            shown = " ".join(" ".join(text_of(box).split()).split())
            assert question in shown, shown
            assert box.region.bottom <= session.query_one("#picker-actions").region.y  # above the Send button
        await pilot.press("escape", "1", "ctrl+s")
        await outcome_shown(pilot, app)  # a session's outcome: its keys (n Next, b Flag) fit too
        await settled(pilot)
        footer_fits(session)
        await pilot.press("enter")
        await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the run's summary")
        await settled(pilot)
        footer_fits(app.screen)  # the summary's too (it ended "^p palettet")
    app = PXPApp(db_path)  # the start screen
    async with app.run_test(size=(80, 24)) as pilot:
        button = await wait_for(pilot, lambda: app.screen.query("#review-button") and app.screen.query_one("#review-button"))
        await settled(pilot)  # the footer's keys come a frame after the screen's
        assert "Review past runs" in text_of(button)
        assert button.region.bottom < 23 and button.region.height == 1  # on screen without scrolling
        footer_fits(app.screen)
    review = ReviewApp(db_path)
    async with review.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: review.screen.query(DataTable) and review.screen.query_one(DataTable).row_count)
        await settled(pilot)  # the footer composes its keys once the screen's bindings are known: after the table fills
        footer_fits(review.screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(review.screen).__name__ == "SessionsScreen", "the sessions")
        await settled(pilot)
        footer_fits(review.screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(review.screen).__name__ == "ReplayScreen", "the replay")
        await settled(pilot)
        footer_fits(review.screen)
        status = review.screen.query_one("#replay-status")
        assert "message 1 /" in text_of(status) and "REJECT" in text_of(status)


#: the bright red, green and blue of a 16-colour terminal (ANSI 9, 10, 12)
SATURATED_16 = {9: "bright red", 10: "bright green", 12: "bright blue"}


def colours_16(screen) -> dict[int, int]:
    """Cells drawn in each of the 16 colours (text and background), each colour taken to the nearest of the 16 as
    Rich does for such a terminal."""
    from collections import Counter

    from rich.color import ColorSystem

    from pxp_harness.internals import screen_strips

    seen: Counter[int] = Counter()
    for strip in screen_strips(screen):
        for segment in strip:
            for colour in (segment.style.color, segment.style.bgcolor) if segment.style else ():
                if colour is not None:
                    seen[colour.downgrade(ColorSystem.STANDARD).number] += len(segment.text)
    return dict(seen)


async def test_a_terminal_of_16_colours_gets_no_bright_red_green_or_blue(db_path: Path, monkeypatch) -> None:
    """Plain xterm (16 colours): the accent and the errors became bright red, success bright green, on black."""
    from pxp_tui.app.shared import look

    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setattr(look, "sixteen_colours", lambda app: True)  # as TERM=xterm, without COLORTERM, makes Rich
    async with live_app(db_path, size=(100, 30)) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        await settled(pilot)
        shown = colours_16(session)
        assert not {SATURATED_16[c] for c in shown if c in SATURATED_16}, shown
        assert {3, 6} <= set(shown)  # the accent in yellow, the primary in cyan
        calm = app.current_theme  # made once per theme (Textual asks for it thousands of times per frame)
        assert app.current_theme is calm and calm.primary == look.CALM_16["primary"] and calm.name == app.theme
        await pilot.press("2", "ctrl+s")  # REFUTE: the machine answers, the tags in their colours
        await wait_for(pilot, lambda: len(session.exchange.messages) >= 3, "the machine's answer")
        await settled(pilot)
        assert not {SATURATED_16[c] for c in colours_16(session) if c in SATURATED_16}
    monkeypatch.setattr(look, "sixteen_colours", lambda app: False)
    async with live_app(db_path, size=(100, 30)) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        await settled(pilot)
        assert 9 in colours_16(session)  # a terminal of more colours keeps the theme's own
