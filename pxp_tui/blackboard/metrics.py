"""Reading intelligibility back: per-run counts (from the SQL views) and tag sequences (the curves are in ``curves``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pxp_tui.blackboard.schema import CLASSES, NOT_SKIPPED
from pxp_tui.blackboard.store import Blackboard
from pxp_tui.protocol import RunCounts, Sender, Tag


def run_rows(board: Blackboard, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Rows of the ``run_intelligibility`` view (all runs, or these), in run order; a killed run's
    ``running`` shown as ``interrupted``."""
    if run_ids:
        board.check_runs(run_ids)
        marks = ",".join("?" * len(run_ids))
        sql = f"SELECT * FROM run_intelligibility WHERE run_id IN ({marks}) ORDER BY run_id"
        return board.shown_status(list(board.db.query(sql, list(run_ids))), "run_id")
    return board.shown_status(list(board.db.query("SELECT * FROM run_intelligibility ORDER BY run_id")), "run_id")


def counts_of(row: dict[str, Any]) -> RunCounts:
    return RunCounts(sessions=row["sessions"], **{c: row[c] for c in CLASSES})


def session_tags(board: Blackboard, run_id: int, *, finished_only: bool = True) -> list[list[tuple[Sender, Tag]]]:
    """Each session's (sender, tag) sequence, in session order; sessions the expert skipped are left out."""
    where = "AND d.stop_reason IS NOT NULL" if finished_only else ""
    where += f" AND d.{NOT_SKIPPED}"
    sql = f"""SELECT m.session_id, m.sender, m.tag FROM messages m JOIN data d ON d.session_id = m.session_id
              WHERE d.run_id = ? {where} ORDER BY d.ord, m.j"""
    sessions: dict[int, list[tuple[Sender, Tag]]] = {}
    for session_id, sender, tag in board.db.execute(sql, [run_id]):
        sessions.setdefault(session_id, []).append((Sender(sender), Tag(tag)))
    return list(sessions.values())
