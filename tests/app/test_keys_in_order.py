"""Every key typed lands where it was typed: a burst typed at the start screen's first frame, before its fields are
mounted (tab through the form, a name of 200 characters, n, the first N instances chosen in a list, N, start), is
handled key by key by the field that has the focus when its turn comes, and the run is stored with exactly what was
typed. The keys reach the app as a terminal's driver delivers them, all at once, with no wait between them (Pilot's
own ``press`` waits for the app between keys, which hid the loss)."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.app_helpers import expert_turn, rows, wait_for
from pxp_harness.internals import send_to_driver
from pxp_tui.app.shared.textual_internals import terminal_events
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start.screen import StartScreen

#: 200 characters, of every kind a name may hold (spaces, punctuation, accents, other scripts, a question mark; none
#: at either end, where the form trims spaces)
NAME = ("Dr. Zoë O'Brien-Smith, M.D. (radiology) ü 中文 #7 ? " * 5)[:199] + "."
BACKTAB, TAB, ENTER, DOWN, CTRL_S = "\x1b[Z", "\t", "\r", "\x1b[B", "\x13"


def burst(name: str, n: str, first: str, start: str = CTRL_S) -> str:
    """What the expert types, as the terminal sends it: from Start (focused), back to the name (five fields up),
    the name over the one offered, on to n, then up to the instances (five up), "the first N" chosen in its list,
    on to N, and ctrl+s (or ``start``: enter, in N, starts too)."""
    return BACKTAB * 5 + name + TAB + n + BACKTAB * 5 + ENTER + DOWN + ENTER + TAB + first + start


async def test_a_burst_typed_at_the_first_frame_is_stored_exactly(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        assert isinstance(app.screen, StartScreen) and not app.screen.fields.mounted.is_set()  # the first frame
        for event in terminal_events(burst(NAME, "6", "2")):  # at once, as a terminal delivers a burst
            send_to_driver(app, event)
        await expert_turn(pilot, app, j=2)
    assert rows(db_path, "SELECT expert, n, k, json_extract(options, '$.limit') AS first FROM runs") == [
        {"expert": NAME, "n": 6, "k": 3, "first": 2}
    ]


async def test_keys_typed_after_tab_go_to_the_field_tab_reaches(db_path: Path, monkeypatch) -> None:
    """Textual hands a key to the focused field and moves the focus on tab only once tab has come back up to the app:
    the keys typed right after a tab went into the field tab was leaving."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for(
            pilot, lambda: isinstance(app.screen, StartScreen) and app.screen.fields.mounted.is_set() and app.screen
        )
        screen.query_one("#start-name").focus()
        await pilot.pause()
        for event in terminal_events("alice" + TAB + "7" + TAB + "2" + BACKTAB * 2 + "bob"):
            send_to_driver(app, event)
        field = screen.query_one("#start-name")
        await wait_for(pilot, lambda: field.value == "bob", "the name typed over last")  # shift+tab twice: back
        assert (screen.query_one("#start-n").value, screen.query_one("#start-k").value) == ("7", "2")


async def test_a_burst_typed_into_an_app_started_without_the_focus_is_stored_exactly(db_path: Path, monkeypatch) -> None:
    """As in a browser tab, whose page has no focus yet as the app starts: Textual focuses nothing as the screen is
    composed in an app without the focus, and on the first key gave back only what had the focus before (nothing), so
    the keys went to no field: shift+tab to the last one."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    app = PXPApp(db_path)
    app.set_reactive(PXPApp.app_focus, False)  # the app starts blurred, as textual-serve's driver starts it
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and app.screen.fields.mounted.is_set())
        assert app.focused is None and not app.app_focus  # nothing was focused as the screen was composed
        for event in terminal_events(burst(NAME, "6", "2")):
            send_to_driver(app, event)
        await expert_turn(pilot, app, j=2)
    assert rows(db_path, "SELECT expert, n, k, json_extract(options, '$.limit') AS first FROM runs") == [
        {"expert": NAME, "n": 6, "k": 3, "first": 2}
    ]
