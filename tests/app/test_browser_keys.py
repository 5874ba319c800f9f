"""In a browser tab no action of the app is bound only to a key the browser keeps (``app/shared/browser.py``):
every binding is listed against the browsers' keys, and where served the footer and the help show the key that
reaches the page (``alt+s`` for ctrl+s, which saves the page)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.app import App
from textual.binding import Binding
from textual.widgets import TextArea

from pxp_harness.app_helpers import expert_turn, live_app, rows, type_answer, wait_for
from pxp_tui.app.shared import textual_internals
from pxp_tui.app.shared.browser import BROWSER_KEYS, PALETTE, reach_the_page
from pxp_tui.app.shell.keymap import keys
from pxp_tui.app.shell.pxp_app import PXPApp

from .test_app_keys import app_classes


def every_binding() -> list[tuple[str, Binding]]:
    """pxp's bindings (every screen, widget, dialog and app class), the command palette's keys as one (Textual's
    and pxp's second one, ``app.palette``)."""
    found = [(cls.__name__, b) for cls in app_classes() for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]
    palette = [b for _, b in found if b.id == "app.palette"]
    assert len(palette) == 1
    both = f"{PXPApp.COMMAND_PALETTE_BINDING},{palette[0].key}"
    return [
        *((o, b) for o, b in found if b.id != "app.palette"),
        ("PXPApp", Binding(both, "command_palette", "palette", id="textual.palette")),
    ]


def test_every_action_has_a_key_that_reaches_a_page_in_a_browser() -> None:
    bindings = every_binding()
    assert len(bindings) >= 60
    kept = {f"{owner} {b.id}: {b.key}" for owner, b in bindings if not reach_the_page(keys(b))}
    assert kept == set()
    # the palette opens with either key, whatever the footer shows
    assert {b.key for b in PXPApp.BINDINGS if isinstance(b, Binding) and b.id == "app.palette"} | {
        PXPApp.COMMAND_PALETTE_BINDING
    } == set(PALETTE)


def test_the_check_finds_an_action_bound_only_to_keys_the_browser_keeps() -> None:
    assert reach_the_page(["ctrl+w"]) == []  # Chrome closes the tab
    assert reach_the_page(["ctrl+s"]) == []  # the browser saves the page
    assert reach_the_page(["ctrl+w", "ctrl+backspace"]) == ["ctrl+backspace"]
    assert {"ctrl+n", "ctrl+t", "ctrl+w", "ctrl+tab", "ctrl+s", "ctrl+r", "ctrl+o", "ctrl+p"} <= set(BROWSER_KEYS)


#: run in a process of its own with the environment of a served app: each binding's first key (the one the footer
#: and the help show), and the texts that name keys
SERVED = """
import json, sys
sys.path.insert(0, ".")
from textual.binding import Binding
from tests.app.test_app_keys import app_classes
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start import screen as start
first = {b.id: b.key.split(",")[0].strip() for cls in app_classes() for b in cls.__dict__.get("BINDINGS", [])
         if isinstance(b, Binding) and not b.system}  # a system binding is in neither the footer nor the help
first["textual.palette"] = PXPApp.COMMAND_PALETTE_BINDING
print(json.dumps({"first": first, "intro": start.INTRO_RESUME}))
"""


def firsts(environment: dict[str, str]) -> dict:
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"} | environment
    done = subprocess.run([sys.executable, "-c", SERVED], cwd=root, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_served_the_footer_and_the_help_show_the_key_that_reaches_the_page_and_in_a_terminal_the_terminal_s() -> None:
    served = firsts({"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"})
    shown_kept = {id_: key for id_, key in served["first"].items() if key in BROWSER_KEYS}
    assert shown_kept == {}
    assert served["first"]["session.send"] == "alt+s" and served["first"]["textual.palette"] == "alt+p"
    assert "alt+s to start" in served["intro"]
    terminal = firsts({})
    assert terminal["first"]["session.send"] == "ctrl+s" and terminal["first"]["textual.palette"] == "ctrl+p"
    assert "ctrl+s to start" in terminal["intro"]
    assert isinstance(App.COMMAND_PALETTE_BINDING, str)


@pytest.mark.parametrize("sequence", ["\x1bs", "\x13"], ids=["alt+s", "ctrl+s"])
async def test_the_send_key_sent_from_inside_the_explanation_sends_it_as_typed(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, sequence: str
) -> None:
    """The bytes the page's terminal sends for alt+s (ESC s, read by Textual's own parser as alt+s carrying an s)
    while the expert types: the answer is sent, without an s added to it."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    async with live_app(db_path) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("3")  # REVISE: the expert's own words
        await type_answer(pilot, app, explanation="Two aromatic rings, as in the reaction I know")
        assert isinstance(app.focused, TextArea)
        for event in textual_internals.terminal_events(sequence):  # as the driver reads them from the terminal
            app.post_message(event)
        sql = "SELECT m.tag, m.explanation FROM messages m JOIN data d USING (session_id) WHERE d.run_id = ? AND m.j = 2"
        sent = await wait_for(pilot, lambda: rows(db_path, sql, (run_id,)), "the answer sent")
        assert [(r["tag"], r["explanation"]) for r in sent] == [("REVISE", "Two aromatic rings, as in the reaction I know")]
