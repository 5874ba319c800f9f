"""``kill -9`` of the real app mid-answer: what the expert typed up to the last pause is kept, and comes back."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP, Tmux, expert_turn, gone, needs_tmux
from pxp_harness.waiting import poll

pytestmark = pytest.mark.slow


def draft(db: Path) -> tuple | None:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute("SELECT j, tag, prediction, explanation FROM drafts").fetchone()


@needs_tmux
def test_kill_9_mid_answer_keeps_the_answer_typed_before_the_last_pause(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    tmux = Tmux(tmp_path)
    try:
        tmux.start("first", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", "3", "--db", str(db)])
        expert_turn(tmux, "first", 1, 3)
        tmux.keys("first", "3")  # REVISE: the prediction field takes the focus
        # the tag chosen and the field focused: the footer shows the text field's keys, not the screen's
        tmux.wait("first", r"(?s)● 3 REVISE.*\^s Send f1 Keys")
        tmux.keys("first", "C-a", "CCN")  # its text replaced
        poll(lambda: (draft(db) or (None,) * 4)[2] == "CCN", "the draft of the prediction")
        tmux.keys("first", "Tab")  # to the explanation (its prefilled text selected: replaced by what is typed)
        tmux.keys("first", "an amine, not the alcohol")
        # a pause in typing: the draft is written (what the expert typed so far)
        poll(lambda: (draft(db) or (None,) * 4)[3] == "an amine, not the alcohol", "the draft after the pause")
        tmux.keys("first", " because")  # typed just before the kill: may be lost, and nothing more
        pid = tmux.pxp_pid("first")
        os.kill(pid, signal.SIGKILL)
        assert gone(pid)

        kept = draft(db)
        assert kept is not None and kept[:3] == (2, "REVISE", "CCN")
        assert kept[3] in ("an amine, not the alcohol", "an amine, not the alcohol because")
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 1  # the machine's INIT only
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

        tmux.start("again", [str(PXP), "run", "--resume", "1", "--db", str(db)])
        screen = expert_turn(tmux, "again", 1, 3)
        assert "an amine, not the alcohol" in tmux.wait("again", "an amine, not the alcohol")
        assert "CCN" in screen or "CCN" in tmux.screen("again")
        tmux.keys("again", "C-s")
        tmux.wait("again", "message [34] of 10")

        def sent() -> tuple | None:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                return conn.execute("SELECT tag, prediction, explanation FROM messages WHERE j = 2").fetchone()

        assert poll(sent, "the expert's message stored") == ("REVISE", "CCN", kept[3])
        assert draft(db) is None
    finally:
        tmux.close()
