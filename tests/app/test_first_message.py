"""The first session's start, as a new expert launches ``pxp`` and presses enter at the first frame: what the app
does between enter and the machine's first message (counted, not timed: ``benchmarks/first_message.py`` times it)."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual import events

from ..conftest import ROOT

#: Textual lets a screen's first resume leave its styles alone (``ScreenResume(refresh_styles=...)``, Textual 8)
RESUME_WITHOUT_RESTYLE = "refresh_styles" in inspect.signature(events.ScreenResume.__init__).parameters

PROBE = r"""
import asyncio, gc, json, sys
from pathlib import Path

from textual.dom import DOMNode

import pxp_tui.app.shell.launch as launch
from pxp_tui.app.shell.pxp_app import PXPApp

seen = {"restyled": []}
watching = False
restyle = DOMNode.update_node_styles

def update_node_styles(self, animate=True):  # a node and all its descendants styled again
    if watching:
        seen["restyled"].append([type(self).__name__, len(list(self.walk_children()))])
    restyle(self, animate)

DOMNode.update_node_styles = update_node_styles

async def headless(db_path):
    app = PXPApp(Path(db_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await app.painted()
        before = [generation["collections"] for generation in gc.get_stats()]
        global watching
        watching = True
        await pilot.press("enter")
        for _ in range(24000):  # a bound against hanging (240 s), not a wait: the loop ends at the expert's turn
            screen = app.screen
            if type(screen).__name__ == "SessionScreen" and screen.answering:
                break
            await asyncio.sleep(0.01)
        after = [generation["collections"] for generation in gc.get_stats()]
        watching = False
        seen["turn"] = type(app.screen).__name__ == "SessionScreen" and app.screen.answering
        seen["collections"] = [b - a for a, b in zip(before, after)]
    return 0

launch.run_app = lambda db_path, run_id=None: asyncio.run(headless(db_path))  # headless, same path otherwise
from pxp_tui.cli.main import main  # what the `pxp` command runs

assert main([]) == 0
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """What the app did between enter at the first frame and the expert's first turn (one launch for the tests)."""
    return first_session(tmp_path_factory.mktemp("first"))


def first_session(tmp_path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "sessions.db")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,  # a bound against hanging, as the loop inside
        env={"PATH": "/usr/bin:/bin", "PXP_IMAGES": "none", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_no_full_garbage_collection_between_enter_and_the_first_message(started: dict) -> None:
    """The modules and the screens live as long as the app: the collector leaves them out (``app/shell/heap.py``).
    Walking them all took 0.05-0.1 s of the loop's CPU each time, once or twice before the first message."""
    assert started["turn"], "the expert's turn never came"
    young, _, full = started["collections"]
    assert full == 0, f"{full} full collection(s) between enter and the expert's turn"
    assert young < 100, f"{young} young collections between enter and the expert's turn (700 allocations apart)"


@pytest.mark.slow
@pytest.mark.skipif(
    not RESUME_WITHOUT_RESTYLE, reason="this Textual styles a screen again whole at every resume (no refresh_styles)"
)
def test_the_session_screen_is_styled_once_before_the_first_message(started: dict) -> None:
    """Its widgets are styled as they mount; shown for the first time, the screen is not styled again whole (some ninety
    widgets), nor is the answer form, disabled from the start, until the expert's turn enables it."""
    assert started["turn"], "the expert's turn never came"
    whole = [widgets for name, widgets in started["restyled"] if name == "SessionScreen" and widgets]
    assert not whole, f"the session screen styled again whole, with its {whole[0]} widgets"
    assert [name for name, _ in started["restyled"]].count("TagPicker") == 1  # enabled at the expert's turn


async def test_an_app_made_again_in_the_same_process_leaves_the_garbage_before_it_to_the_collector(db_path) -> None:
    """The heap is frozen once per process at each moment (the first frame, the modules preloaded): a second app in
    the same process (as the tests make hundreds) freezes nothing more, so what the first left behind is freed."""
    import gc

    from pxp_tui.app.shell.pxp_app import PXPApp

    frozen = []
    for _ in range(2):
        app = PXPApp(db_path)
        async with app.run_test(size=(80, 24)):
            await app.painted()
            await app.loaded()
            await app.screen.fields.mounted.wait()  # the form whole, as an expert sees it, before it is taken down
        frozen.append(gc.get_freeze_count())
        garbage = [[object()] for _ in range(1000)]  # cycles left for the collector, as an app's screens are
        for item in garbage:
            item.append(item)
        del garbage
    assert frozen[0] > 0, "the heap was never frozen"
    assert frozen[1] <= frozen[0], f"the second app froze {frozen[1] - frozen[0]} objects more"
