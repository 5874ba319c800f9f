"""The real `pxp` in a real terminal (tmux): keys in, blackboard out; a clean exit; a crash loses nothing shown."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP, Tmux, expert_turn, gone, installed_tmux, run_finished
from pxp_tui.app.picture.tmux import version_tuple

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


def query(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_keys_1_and_ctrl_s_ratify_every_session_and_q_exits_cleanly(tmux: Tmux, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    total = 5  # of the bundled demo's 23 (every demo molecule is drawn and shown in tests/app/test_app_verbatim.py)
    command = ["run", "--task", "drug", "--model", "offline", "--human", "live", "--limit", str(total), "--db", str(db)]
    tmux.start("live", [str(PXP), *command])
    for session in range(1, total + 1):
        expert_turn(tmux, "live", session, total)
        tmux.keys("live", "1", "C-s")
    run_finished(tmux, "live")
    tmux.keys("live", "q")  # the run is done: nothing to confirm
    assert tmux.exit_code("live") == 0

    human = query(db, "SELECT tag, COUNT(*) FROM messages WHERE sender = 'human' GROUP BY tag")
    assert human == [("RATIFY", total)]
    assert query(db, "SELECT status, human_kind FROM runs") == [("done", "live")]
    assert query(db, "SELECT COUNT(*) FROM data WHERE stop_reason = 'ratified'") == [(total,)]


def test_a_crash_loses_nothing_shown_and_the_run_resumes_at_the_next_message(tmux: Tmux, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    tmux.start("first", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", "3", "--db", str(db)])
    for session in (1, 2):
        expert_turn(tmux, "first", session, 3)
        tmux.keys("first", "1", "C-s")
    expert_turn(tmux, "first", 3, 3)  # the machine's INIT of session 3 is on screen
    pid = tmux.pxp_pid("first")
    os.kill(pid, signal.SIGKILL)
    assert gone(pid)  # its lock on the run is the kernel's to free as it ends: --resume before that is refused

    shown = query(db, "SELECT d.ord, m.j, m.sender, m.tag FROM messages m JOIN data d USING (session_id) ORDER BY d.ord, m.j")
    assert shown[-1] == (2, 1, "machine", "INIT")
    assert len(shown) == 7

    tmux.start("again", [str(PXP), "run", "--resume", "1", "--db", str(db)])
    expert_turn(tmux, "again", 3, 3)
    tmux.keys("again", "1", "C-s")
    run_finished(tmux, "again")
    tmux.keys("again", "q")
    assert tmux.exit_code("again") == 0
    third = query(db, "SELECT m.j, m.sender, m.tag FROM messages m JOIN data d USING (session_id) WHERE d.ord = 2 ORDER BY m.j")
    assert third == [(1, "machine", "INIT"), (2, "human", "RATIFY"), (3, "machine", "RATIFY")]  # INIT not asked again


def test_in_tmux_3_3_an_xray_header_says_once_that_no_pixels_pass_and_what_to_do(tmux: Tmux, tmp_path: Path) -> None:
    """The real tmux here (3.3) passes no Sixel: the X-ray's header says so, in words, with the expert's options."""
    version = installed_tmux()
    assert version is not None  # the tmux fixture runs only where tmux is
    db = tmp_path / "sessions.db"
    command = [str(PXP), "run", "--task", "rad", "--human", "live", "--limit", "1", "--db", str(db)]
    tmux.start("rad", command, pane_env=("TERM_PROGRAM", "TERM_PROGRAM_VERSION"))
    screen = tmux.wait("rad", r"Your turn", patience=240)  # a bound: the first turn on a loaded machine
    if version_tuple(version) >= (3, 4):
        pytest.skip(f"tmux {version} may pass Sixel through")
    # the picture's pane, left of the others (as wide as the machine's pane under it): the note wraps in it
    width = next(line.index("╮") + 1 for line in screen.splitlines() if "─ Machine ─" in line)
    flat = " ".join(" ".join(line[:width] for line in screen.splitlines()).split())
    assert f"tmux {version} passes no pictures through" in flat
    assert "v opens the original" in flat and "pxp serve" in flat
    assert flat.count("passes no pictures") == 1  # said once
    assert "Gi=" not in tmux.tmux("display-message", "-p", "-t", "rad", "#{pane_title}")  # no kitty question as its title
    tmux.keys("rad", "f")  # full-screen, the first key at the first turn: said there too, once
    full = " ".join(tmux.wait("rad", r"Fit").split())
    assert full.count(f"tmux {version} passes no pictures through") == 1
