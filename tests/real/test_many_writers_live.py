"""A dozen real ``pxp`` processes, the live app and outside readers on one new file: all finish, nothing is lost.

Every writer starts at once on a file that does not exist yet (each makes the schema, imports the demo and creates its
run, as ``pxp run`` does), an expert answers in the real app in a private tmux server, outside readers come and go,
and one more headless writer is killed with ``kill -9`` in the middle of its run.
"""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness.outside import Readers, env
from pxp_harness.terminal import PATIENCE, PXP, Tmux, expert_turn, needs_tmux, run_finished
from pxp_harness.waiting import poll

from .test_run_status import headless

HEADLESS = 12
LIMIT = 3  # sessions of each headless run
APP_LIMIT = 3  # sessions the expert answers
SESSION = re.compile(r"^session +(\d+)/(\d+) +.*? {2}(\w+) +((?:[A-Z]+_[hm] ?)+)$")


def reported(out: str) -> tuple[int, list[tuple[int, str, list[str]]]]:
    """A headless run's id and its session lines: (session order, stop reason, tags)."""
    run_id = int(re.search(r"^run (\d+):", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
    lines = []
    for line in out.splitlines():
        found = SESSION.match(line)
        if found:
            lines.append((int(found.group(1)) - 1, found.group(3), found.group(4).split()))
    return run_id, lines


def stored(conn: sqlite3.Connection, run_id: int) -> list[tuple[int, str, list[str]]]:
    """Run ``run_id``'s sessions as the file holds them: (order, stop reason, tags), the tags as the CLI prints them."""
    sessions = conn.execute("SELECT session_id, ord, stop_reason FROM data WHERE run_id = ? ORDER BY ord", [run_id])
    found = []
    for session_id, order, stop in sessions.fetchall():
        tags = conn.execute("SELECT tag, sender FROM messages WHERE session_id = ? ORDER BY j", [session_id]).fetchall()
        found.append((order, stop, [f"{tag}_{sender[0]}" for tag, sender in tags]))
    return found


def whole(conn: sqlite3.Connection, run_id: int) -> int:
    """Run ``run_id``'s messages, after checking each session's are 1..n with a context entry each; how many."""
    total = 0
    for session_id, n_messages in conn.execute("SELECT session_id, n_messages FROM data WHERE run_id = ?", [run_id]).fetchall():
        js = [r[0] for r in conn.execute("SELECT j FROM messages WHERE session_id = ? ORDER BY j", [session_id])]
        assert js == list(range(1, n_messages + 1))
        assert conn.execute("SELECT COUNT(*) FROM context WHERE session_id = ?", [session_id]).fetchone()[0] == n_messages
        total += n_messages
    return total


def messages_of(db: Path, run_id: int) -> int:
    conn = sqlite3.connect(db, timeout=30)
    try:
        sql = "SELECT COUNT(*) FROM messages m JOIN data d ON d.session_id = m.session_id WHERE d.run_id = ?"
        return conn.execute(sql, [run_id]).fetchone()[0]
    except sqlite3.OperationalError:  # not made yet
        return 0
    finally:
        conn.close()


@pytest.mark.slow
@needs_tmux
def test_a_dozen_headless_runs_the_live_app_a_reader_and_a_kill_9_on_one_new_file(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    tmux = Tmux(tmp_path)
    runs = [headless(db, "--limit", str(LIMIT), latency=0.02) for _ in range(HEADLESS)]
    victim = headless(db, "--limit", "6", latency=0.5)  # slower: killed in the middle of its run
    try:
        tmux.start("app", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", str(APP_LIMIT), "--db", str(db)])
        with Readers(db, random.Random(7), pause=0.3) as readers:
            assert victim.stdout is not None
            victim_run = int(re.match(r"run (\d+):", victim.stdout.readline()).group(1))  # type: ignore[union-attr]
            # in the middle of its run, the others writing too
            poll(
                lambda: messages_of(db, victim_run) >= 3 or victim.poll() is not None, "the victim's third message", 10 * PATIENCE
            )
            assert victim.poll() is None, "the victim ended before its kill"
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait()
            for session in range(1, APP_LIMIT + 1):  # the expert answers each session: RATIFY, send
                expert_turn(tmux, "app", session, APP_LIMIT)
                tmux.keys("app", "1", "C-s")
            run_finished(tmux, "app")
            outputs = [process.communicate(timeout=20 * PATIENCE) for process in runs]
        tmux.keys("app", "q")
        assert tmux.exit_code("app") == 0
    finally:
        for process in [*runs, victim]:
            if process.poll() is None:
                process.kill()
                process.wait()
        tmux.close()
    assert readers.runs > 0 and readers.failures == []
    failed = [(p.returncode, err) for p, (_, err) in zip(runs, outputs, strict=True) if p.returncode != 0]
    assert failed == []  # none failed because another was writing ("database is locked" was 7 of 12)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ids = set()
        for out, _ in outputs:  # every session each process printed is in the file, message for message
            run_id, lines = reported(out)
            ids.add(run_id)
            assert len(lines) == LIMIT and stored(conn, run_id) == lines
            assert conn.execute("SELECT status FROM runs WHERE id = ?", [run_id]).fetchone() == ("done",)
        assert len(ids) == HEADLESS
        (app_run,) = conn.execute("SELECT id FROM runs WHERE human_kind = 'live'").fetchone()
        assert conn.execute("SELECT status FROM runs WHERE id = ?", [app_run]).fetchone() == ("done",)
        answers = conn.execute(
            "SELECT m.tag FROM messages m JOIN data d USING (session_id) WHERE d.run_id = ? AND m.sender = 'human'", [app_run]
        ).fetchall()
        assert answers == [("RATIFY",)] * APP_LIMIT  # each send of the expert, once
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (HEADLESS + 2,)
        assert conn.execute("SELECT COUNT(*) FROM datasets").fetchone() == (1,)  # the demo, imported once
        kept = whole(conn, victim_run)
        assert kept >= 3  # what the victim had committed when it was killed
        total = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        assert total == sum(whole(conn, run_id) for run_id in [*ids, app_run, victim_run])
    finally:
        conn.close()
    shown = subprocess.run(
        [sys.executable, "-m", "pxp_tui", "metrics", "--json", "--db", str(db)], env=env(), capture_output=True, text=True
    )
    assert '"interrupted"' in shown.stdout  # the victim: no writer, so not "running"
    resumed = subprocess.run(
        [sys.executable, "-m", "pxp_tui", "run", "--headless", "--resume", str(victim_run), "--db", str(db), "--quiet"],
        env=env(),
        capture_output=True,
        text=True,
        timeout=10 * PATIENCE,
    )
    assert resumed.returncode == 0, resumed.stderr
