"""Checking stored sessions against the protocol, message by message (tests only)."""

from __future__ import annotations

from pxp_tui.blackboard import Blackboard
from pxp_tui.protocol import Sender, Tag, allowed_tags, decide_tag, sender_at, stop_reason


def assert_run_obeys_protocol(board: Blackboard, run_id: int) -> int:
    """Every planned instance has one finished session, in order, and every message is the protocol's.

    Senders alternate from the machine's INIT; every tag is allowed at its ``j`` and is the decision
    table's for the stored guard values; the proxy never revises; each session stops exactly where
    the stop rule says, with the stored reason. Returns the number of messages checked.
    """
    run = board.run(run_id)
    n, k = run.config.n, run.config.k
    sessions = list(board.db.query("SELECT * FROM data WHERE run_id = ? ORDER BY ord", [run_id]))
    assert [s["instance_id"] for s in sessions] == list(run.plan), "an instance was skipped or repeated"
    checked = 0
    for session in sessions:
        rows = list(board.db.query("SELECT * FROM messages WHERE session_id = ? ORDER BY j", [session["session_id"]]))
        assert [m["j"] for m in rows] == list(range(1, len(rows) + 1))
        latest: dict[Sender, Tag] = {}
        for m in rows:
            j, sender, tag = m["j"], Sender(m["sender"]), Tag(m["tag"])
            assert sender is sender_at(j)
            assert tag in allowed_tags(j, k)
            if j >= 2:
                assert tag is decide_tag(j, k, bool(m["guard_match"]), bool(m["guard_agree"]), bool(m["guard_changed"]))
            if sender is Sender.HUMAN and run.config.human_kind == "proxy":
                assert tag is not Tag.REVISE
            latest[sender] = tag
            stop = stop_reason(j, n, tag, latest.get(Sender.MACHINE), latest.get(Sender.HUMAN))
            if j < len(rows):
                assert stop is None, f"session {session['session_id']} went on after {stop} at j={j}"
            else:
                assert stop is not None and stop.value == session["stop_reason"]
            checked += 1
    return checked
