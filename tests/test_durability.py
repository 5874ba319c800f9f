"""Nothing committed is ever lost, whoever else opens the file (issue 8).

On POSIX, closing any descriptor of a file drops every lock its process holds on it. A read beside
the writer in the same process (the app reads on connections of its own) must not let a reader in
another process believe it is the last one, checkpoint and delete the WAL the writer still appends to.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pxp_tui.app.review.runs_screen import open_board
from pxp_tui.blackboard import Blackboard
from pxp_tui.runs import RunConfig, create_run

from .outside import deleted_files, sqlite_count
from .terminal import PXP, Tmux, expert_turn, gone

DEMO = 23  # sessions in the bundled DRUG demo
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None or not PXP.exists(), reason="needs tmux and the pxp command")


def sqlite_cli(db: Path, sql: str) -> str:
    """``sqlite3 DB SQL`` as the issue ran it (the SQLite shell; the Python module where it is missing)."""
    if shutil.which("sqlite3"):
        return subprocess.run(["sqlite3", str(db), sql], capture_output=True, text=True, check=True).stdout.strip()
    conn = sqlite3.connect(db)
    try:
        return "|".join(str(v) for v in conn.execute(sql).fetchone())
    finally:
        conn.close()


def test_a_read_beside_the_writer_keeps_its_commits_in_the_file(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    writer = Blackboard.open(db)
    try:
        create_run(writer, RunConfig(limit=1))
        # what the app does while its writer is open: the start screen's read, the review's connection
        with Blackboard.open(db, readonly=True) as reader:
            assert reader.run_ids() == [1]
        open_board(db).close()
        assert sqlite_count(db, "runs") == 1  # an outside reader opens and closes the file
        create_run(writer, RunConfig(limit=1))
        assert sqlite_count(db, "runs") == 2  # the writer's commit is in the file, not in a deleted WAL
        assert deleted_files(os.getpid(), db) == []
    finally:
        writer.close()


@pytest.mark.slow
@needs_tmux
def test_six_turns_answered_beside_an_outside_reader_survive_kill_9(tmp_path: Path) -> None:
    """Issue 8's scenario: the app, `sqlite3` at the first turn, six turns answered, kill -9."""
    db = tmp_path / "live.db"
    tmux = Tmux(tmp_path)
    try:
        tmux.start("app", [str(PXP), "run", "--task", "drug", "--model", "offline", "--human", "expert", "--db", str(db)])
        expert_turn(tmux, "app", 1, DEMO)
        assert sqlite_cli(db, "select count(*) from messages") == "1"  # the machine's first message
        for session in range(1, 7):
            expert_turn(tmux, "app", session, DEMO)
            tmux.keys("app", "1", "C-s")
        expert_turn(tmux, "app", 7, DEMO)  # the sixth session's end and the seventh's first message are shown
        pid = tmux.pxp_pid("app")
        assert deleted_files(pid, db) == []
        os.kill(pid, signal.SIGKILL)
        assert gone(pid)
    finally:
        tmux.close()
    assert sqlite_cli(db, "select count(*) from messages where sender='human'") == "6"
    assert sqlite_cli(db, "select count(*) from data where stop_reason = 'ratified'") == "6"
    assert sqlite_cli(db, "select count(*) from messages m join data d using (session_id) where d.ord = 6") == "1"
    assert sqlite_cli(db, "pragma integrity_check") == "ok"
