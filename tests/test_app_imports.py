"""Import hygiene: the first screen loads without litellm or RDKit; they load after first paint, off the UI loop."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import asyncio, json, sys, threading
from pathlib import Path

imported = {}  # heavy top-level module -> thread that imported it

def audit(event, args):
    if event == "import":
        top = args[0].split(".")[0]
        if top in ("litellm", "rdkit") and top not in imported:
            imported[top] = threading.current_thread().name

sys.addaudithook(audit)
from pxp_tui.cli.main import parser  # what `pxp` imports first
parser()
from pxp_tui.app.pxp_app import PXPApp

async def main():
    app = PXPApp(Path(sys.argv[1]), preload=sys.argv[2] == "preload")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = type(app.screen).__name__
        at_first_paint = dict(imported)
        if sys.argv[2] == "preload":
            await asyncio.wait_for(app.loaded(), 60)
        print(json.dumps({"screen": screen, "first": at_first_paint, "later": imported}))

asyncio.run(main())
"""


def probe(tmp_path: Path, mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "sessions.db"), mode],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PXP_IMAGES": "none", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_screen_imports_neither_litellm_nor_rdkit(tmp_path) -> None:
    seen = probe(tmp_path, "no-preload")
    assert seen["screen"] == "StartScreen"
    assert seen["first"] == {}
    assert seen["later"] == {}


def test_litellm_and_rdkit_load_after_first_paint_in_another_thread(tmp_path) -> None:
    seen = probe(tmp_path, "preload")
    assert set(seen["later"]) == {"litellm", "rdkit"}
    assert "MainThread" not in seen["later"].values()
