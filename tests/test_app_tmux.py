"""The real `pxp` in a real terminal (tmux): keys in, blackboard out; a clean exit; a crash loses nothing shown."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .conftest import ROOT

PXP = Path(sys.executable).with_name("pxp")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python"),
]

PATIENCE = 60.0  # a bound against hanging, not a timing assertion


class Tmux:
    """A private tmux server (its own socket), so that the user's sessions are never touched."""

    def __init__(self, tmp_path: Path):
        self.socket = f"pxp-test-{uuid.uuid4().hex[:8]}"
        self.tmp_path = tmp_path

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False).stdout

    def start(self, name: str, command: list[str]) -> None:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.tmp_path),
            "TERM": "xterm-256color",
            "PXP_OFFLINE_LATENCY": "0",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": str(ROOT),  # the package, installed or not
        }
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        rc = self.tmp_path / f"{name}.rc"
        shell = f"cd {shlex.quote(str(self.tmp_path))} && env -i {exports} {shlex.join(command)}; echo $? > {shlex.quote(str(rc))}"
        self.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "48", shell)

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", name, key)
            time.sleep(0.05)

    def wait(self, name: str, pattern: str) -> str:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            text = self.screen(name)
            if re.search(pattern, text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {pattern!r}; the screen was:\n{self.screen(name)}")

    def exit_code(self, name: str) -> int:
        rc = self.tmp_path / f"{name}.rc"
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and not rc.exists():
            time.sleep(0.1)
        return int(rc.read_text().strip())

    def pane_pid(self, name: str) -> int:
        return int(self.tmux("list-panes", "-t", name, "-F", "#{pane_pid}").strip())

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def tmux(tmp_path: Path):
    server = Tmux(tmp_path)
    yield server
    server.close()


def query(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def expert_turn(tmux: Tmux, name: str, session: int, total: int) -> None:
    tmux.wait(name, rf"session {session} / {total} · message 2 / 10(?s:.*)Your turn")


def test_keys_1_and_ctrl_s_ratify_every_session_and_q_exits_cleanly(tmux: Tmux, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    tmux.start("live", [str(PXP), "run", "--task", "drug", "--model", "offline", "--human", "live", "--db", str(db)])
    total = 23  # the bundled demo
    for session in range(1, total + 1):
        expert_turn(tmux, "live", session, total)
        tmux.keys("live", "1", "C-s")
    tmux.wait("live", "The run is finished")
    tmux.keys("live", "q")  # the run is done: nothing to confirm
    assert tmux.exit_code("live") == 0

    human = query(db, "SELECT tag, COUNT(*) FROM messages WHERE sender = 'human' GROUP BY tag")
    assert human == [("RATIFY", total)]
    assert query(db, "SELECT status, human FROM runs") == [("done", "live")]
    assert query(db, "SELECT COUNT(*) FROM data WHERE stop_reason = 'ratified'") == [(total,)]


def test_a_crash_loses_nothing_shown_and_the_run_resumes_at_the_next_message(tmux: Tmux, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    tmux.start("first", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", "3", "--db", str(db)])
    for session in (1, 2):
        expert_turn(tmux, "first", session, 3)
        tmux.keys("first", "1", "C-s")
    expert_turn(tmux, "first", 3, 3)  # the machine's INIT of session 3 is on screen
    pxp = [p for p in _children(tmux.pane_pid("first")) if "pxp" in _cmdline(p)]
    assert pxp, "the pxp process"
    os.kill(pxp[0], signal.SIGKILL)

    shown = query(db, "SELECT d.ord, m.j, m.sender, m.tag FROM messages m JOIN data d USING (session_id) ORDER BY d.ord, m.j")
    assert shown[-1] == (2, 1, "machine", "INIT")
    assert len(shown) == 7

    tmux.start("again", [str(PXP), "run", "--resume", "1", "--db", str(db)])
    expert_turn(tmux, "again", 3, 3)
    tmux.keys("again", "1", "C-s")
    tmux.wait("again", "The run is finished")
    tmux.keys("again", "q")
    assert tmux.exit_code("again") == 0
    third = query(db, "SELECT m.j, m.sender, m.tag FROM messages m JOIN data d USING (session_id) WHERE d.ord = 2 ORDER BY m.j")
    assert third == [(1, "machine", "INIT"), (2, "human", "RATIFY"), (3, "machine", "RATIFY")]  # INIT not asked again


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout.split()
    found = [int(p) for p in out]
    return found + [g for c in found for g in _children(c)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
