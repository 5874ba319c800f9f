"""Every key typed in a real terminal (tmux) lands where it was typed: a burst sent in one write at the start screen's
first frame, and one typed before the app has even asked the terminal about graphics (the probe read a key as a bad
answer and dropped it, and its answer then came in as keys), are stored exactly; so under two CPU-bound processes."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP, Tmux

from ..app.test_keys_in_order import ENTER, NAME, burst

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python"),
]


@pytest.fixture
def tmux(tmp_path: Path):
    server = Tmux(tmp_path)
    yield server
    server.close()


@pytest.fixture
def busy():
    """Two CPU-bound processes beside the test (the two cores taken), stopped after it."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield burners
    for burner in burners:
        burner.kill()
        burner.wait()


def typed(tmux: Tmux, name: str, text: str) -> None:
    """``text`` written to the pane's terminal in one go, as its bytes (a burst, not key by key)."""
    tmux.tmux("send-keys", "-t", name, "-H", *(f"{byte:02x}" for byte in text.encode()))


def stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT expert, n, json_extract(options, '$.limit') FROM runs").fetchall()


@pytest.mark.parametrize("when", ["at the first frame", "before the app starts"])
def test_a_burst_typed_in_a_terminal_is_stored_exactly(tmux: Tmux, tmp_path: Path, when: str) -> None:
    db = tmp_path / "sessions.db"
    tmux.start("pxp", [str(PXP), "app", "--db", str(db)], size=(80, 24))
    if when == "at the first frame":
        tmux.wait("pxp", r"Start \(enter\)")
    # before pxp has set the terminal's mode, the terminal's line discipline takes ctrl+s (flow control: stop the
    # output) for itself; enter, in N, starts the run as well
    typed(tmux, "pxp", burst(NAME, "6", "2", start=ENTER))
    tmux.wait("pxp", r"session 1 of 2 · message 2 of 6")
    assert stored(db) == [(NAME, 6, 2)]


def test_a_burst_typed_at_the_first_frame_under_two_busy_processes_is_stored_exactly(
    tmux: Tmux, tmp_path: Path, busy: list
) -> None:
    db = tmp_path / "sessions.db"
    tmux.start("pxp", [str(PXP), "app", "--db", str(db)], size=(80, 24))
    tmux.wait("pxp", r"Start \(enter\)")
    typed(tmux, "pxp", burst(NAME, "6", "2"))
    tmux.wait("pxp", r"session 1 of 2 · message 2 of 6")
    assert stored(db) == [(NAME, 6, 2)]
