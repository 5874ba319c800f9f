"""The first session's start, as a new expert launches ``pxp`` and presses enter at the first frame: what the app
does between enter and the machine's first message (counted, not timed: ``benchmarks/first_message.py`` times it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PROBE = r"""
import asyncio, gc, json, sys
from pathlib import Path

import pxp_tui.app.shell.launch as launch
from pxp_tui.app.shell.pxp_app import PXPApp

seen = {}

async def headless(db_path):
    app = PXPApp(Path(db_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await app.painted()
        before = [generation["collections"] for generation in gc.get_stats()]
        await pilot.press("enter")
        for _ in range(24000):  # a bound against hanging (240 s), not a wait: the loop ends at the expert's turn
            screen = app.screen
            if type(screen).__name__ == "SessionScreen" and screen.answering:
                break
            await asyncio.sleep(0.01)
        after = [generation["collections"] for generation in gc.get_stats()]
        seen["turn"] = type(app.screen).__name__ == "SessionScreen" and app.screen.answering
        seen["collections"] = [b - a for a, b in zip(before, after)]
    return 0

launch.run_app = lambda db_path, run_id=None: asyncio.run(headless(db_path))  # headless, same path otherwise
from pxp_tui.cli.main import main  # what the `pxp` command runs

assert main([]) == 0
print(json.dumps(seen))
"""


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
def test_no_full_garbage_collection_between_enter_and_the_first_message(tmp_path: Path) -> None:
    """The modules and the screens live as long as the app: the collector leaves them out (``app/shell/heap.py``).
    Walking them all took 0.05-0.1 s of the loop's CPU each time, once or twice before the first message."""
    seen = first_session(tmp_path)
    assert seen["turn"], "the expert's turn never came"
    young, _, full = seen["collections"]
    assert full == 0, f"{full} full collection(s) between enter and the expert's turn"
    assert young < 100, f"{young} young collections between enter and the expert's turn (700 allocations apart)"
