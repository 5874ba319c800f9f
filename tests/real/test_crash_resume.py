"""``kill -9`` in the middle of a run, then ``pxp run --resume``: nothing lost, nothing duplicated."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_harness.waiting import poll

from ..conftest import ROOT


def message_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def sequences(db: Path) -> list[tuple[int, int, str, str, str]]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT d.ord, m.j, m.sender, m.tag, m.prediction FROM messages m JOIN data d USING (session_id) ORDER BY d.ord, m.j"
    ).fetchall()
    conn.close()
    return rows


@pytest.mark.slow
def test_kill_9_then_resume_matches_an_uninterrupted_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The run killed is a real process; the uninterrupted run and the resume are the same commands run in this
    process (pxp_harness/cli_helpers.py), which spares starting Python and importing litellm twice more."""
    args = ["run", "--headless", "--task", "drug", "--model", "offline", "--human", "proxy", "--quiet"]
    whole = tmp_path / "whole.db"
    assert pxp(capsys, *args, "--db", whole)[0] == 0

    crashed = tmp_path / "crashed.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PXP_OFFLINE_LATENCY": "0.05"}
    process = subprocess.Popen(
        [sys.executable, "-m", "pxp_tui", *args, "--db", str(crashed)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def under_way() -> bool:  # well into the run: several sessions done, one open
        assert process.poll() is None, "the run ended before it could be killed"
        return message_count(crashed) >= 30

    try:
        poll(under_way, "30 messages of the run", patience=120, step=0.02)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    killed_at = message_count(crashed)
    total = len(sequences(whole))
    assert 30 <= killed_at < total

    conn = sqlite3.connect(crashed)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    status = conn.execute("SELECT status FROM runs").fetchone()[0]
    conn.close()
    assert status == "running"  # killed: it never got to say otherwise

    code, _, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", crashed, "--quiet")
    assert code == 0, err

    conn = sqlite3.connect(crashed)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    sessions = conn.execute("SELECT COUNT(*) FROM data WHERE stop_reason IS NOT NULL").fetchone()[0]
    assert conn.execute("SELECT status FROM runs").fetchone()[0] == "done"
    conn.close()
    reference = sqlite3.connect(whole).execute("SELECT COUNT(*) FROM data").fetchone()[0]
    assert sessions == reference
    # the offline machine is deterministic: the resumed run is the uninterrupted run, message for message
    assert sequences(crashed) == sequences(whole)
