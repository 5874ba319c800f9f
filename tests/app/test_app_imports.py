"""Import hygiene: the first screen loads without litellm or RDKit; what a session needs loads after first paint,
off the UI loop, and litellm only once a model other than the offline baseline is named, in a thread of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

PROBE = r"""
import asyncio, json, sys, threading
from pathlib import Path

imported = {}  # heavy package (or the engine's) -> thread that imported it
seen = {}
WATCHED = ("litellm", "rdkit", "sqlite_utils", "pxp_tui.engine")

def audit(event, args):
    if event == "import":
        for watched in WATCHED:
            if (args[0] == watched or args[0].startswith(watched + ".")) and watched not in imported:
                imported[watched] = threading.current_thread().name

sys.addaudithook(audit)
import pxp_tui.app.shell.launch as launch
from pxp_tui.app.shell.pxp_app import PXPApp

first_paint = PXPApp.on_ready

def on_ready(self):  # the first frame is on the screen: what was imported to build it?
    seen["first"] = dict(imported)
    first_paint(self)

PXPApp.on_ready = on_ready

async def headless(db_path):
    app = PXPApp(Path(db_path), preload=sys.argv[2] == "preload")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        seen["screen"] = type(app.screen).__name__
        if sys.argv[2] in ("preload", "model"):
            await asyncio.wait_for(app.loaded(), 240)  # a bound against hanging: on a loaded machine 60 s was passed
            await app.blackboard()
        seen["later"] = dict(imported)
        if sys.argv[2] == "model":
            from pxp_tui.agents.llm import litellm_ready

            app.expect_model("gpt-4o-mini")  # typed into the machine's field
            await asyncio.wait_for(litellm_ready(), 240)
            seen["model"] = dict(imported)
    return 0

launch.run_app = lambda db_path, run_id=None: asyncio.run(headless(db_path))  # headless, same path otherwise
from pxp_tui.cli.main import main  # what the `pxp` command runs

assert main([]) == 0
print(json.dumps(seen))
"""


def probe(tmp_path: Path, mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "sessions.db"), mode],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,  # a bound against hanging, as the waits inside
        env={"PATH": "/usr/bin:/bin", "PXP_IMAGES": "none", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_screen_imports_neither_litellm_nor_rdkit_nor_sqlite_utils_nor_the_engine(tmp_path) -> None:
    seen = probe(tmp_path, "no-preload")
    assert seen["screen"] == "StartScreen"
    assert seen["first"] == {}


@pytest.mark.slow
def test_heavy_modules_load_after_first_paint_in_other_threads(tmp_path) -> None:
    seen = probe(tmp_path, "preload")
    heavy = {name: thread for name, thread in seen["later"].items() if not name.startswith("pxp_tui")}
    assert set(heavy) == {"sqlite_utils"}  # RDKit loads in its worker processes; litellm, for an offline run, never
    assert "MainThread" not in heavy.values()


@pytest.mark.slow
def test_litellm_loads_in_a_thread_of_its_own_once_a_model_is_named(tmp_path) -> None:
    seen = probe(tmp_path, "model")
    assert "litellm" not in seen["later"]
    assert seen["model"]["litellm"] == "pxp-litellm-import"


QUIT_DURING_WARM_UP = r"""
import sys, threading
from pxp_tui.agents import llm

importing = threading.Event()

def audit(event, args):  # the import's thread, past litellm itself, importing what its first call needs
    if event == "import" and llm.litellm_loaded() and threading.current_thread().name == "pxp-litellm-import":
        importing.set()

sys.addaudithook(audit)
llm.start_loading_litellm()
assert importing.wait(240), "litellm's warm-up imported nothing"
print("quitting", flush=True)  # and the interpreter shuts down while the warm-up is still at work
"""


@pytest.mark.slow
def test_the_process_ends_when_the_expert_quits_while_litellm_is_still_warming_up(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", QUIT_DURING_WARM_UP],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "quitting"


def test_the_rdkit_worker_starts_without_numpy(tmp_path) -> None:
    """The RDKit worker the DRUG task reads SMILES in starts beside the first session: what it imports as it starts
    (its ``preload``) leaves out numpy, which RDKit's descriptors and fingerprint generators bring (0.2 s of CPU)."""
    from pxp_tui.tasks.drug import reader

    imports = "; ".join(f"import {module}" for module in ("pxp_tui.tasks.isolated", *reader.WORKER.preload))
    done = subprocess.run(
        [sys.executable, "-c", f"{imports}; import sys; print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy'))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "PXP_ISOLATED_WORKER": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
