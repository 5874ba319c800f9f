"""What experts note about sessions beside the protocol: a flag for later and a free-text note (``annotations``),
skipped sessions (``data.stop_reason = 'skipped'``), and the time the expert took per answer (``messages.answer_ms``).

None of it is a message: the protocol's messages are append-only and never changed here. Files from before the
``annotations`` table (read as they are by read-only readers) read as having no flags and no notes.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import sqlite_utils

from pxp_tui.blackboard.schema import table_columns
from pxp_tui.blackboard.store import Blackboard, now
from pxp_tui.protocol import Sender, StopReason


@dataclass(frozen=True)
class Annotation:
    """A session's flag and note."""

    session_id: int
    flagged: bool = False
    note: str = ""

    @property
    def empty(self) -> bool:
        return not self.flagged and not self.note.strip()


def has_table(db: sqlite_utils.Database, schema_name: str = "main") -> bool:
    return bool(table_columns(db, schema_name, "annotations"))


def join_sql(board: Blackboard, alias: str = "a", session: str = "s.session_id") -> str:
    """``LEFT JOIN`` of a session's annotation as ``alias`` (its ``flagged`` and ``note``); on a file without the
    table, a row of nothing, so that the same query reads every file."""
    source = "annotations" if has_table(board.db) else "(SELECT NULL AS session_id, NULL AS flagged, NULL AS note)"
    return f"LEFT JOIN {source} {alias} ON {alias}.session_id = {session}"


def get(board: Blackboard, session_id: int) -> Annotation:
    """Session ``session_id``'s flag and note (none: an empty :class:`Annotation`)."""
    if not has_table(board.db):
        return Annotation(session_id)
    row = board.db.execute("SELECT flagged, note FROM annotations WHERE session_id = ?", [session_id]).fetchone()
    return Annotation(session_id, bool(row[0]), row[1] or "") if row else Annotation(session_id)


def save(board: Blackboard, annotation: Annotation) -> None:
    """Store ``annotation`` (an empty one removes the session's row), in one transaction."""
    found = board.db.execute("SELECT run_id FROM data WHERE session_id = ?", [annotation.session_id]).fetchone()
    if found is None:
        raise ValueError(f"no session {annotation.session_id} in {board.path or 'the blackboard'}")
    with board.transaction():
        if annotation.empty:
            board.db.execute("DELETE FROM annotations WHERE session_id = ?", [annotation.session_id])
            return
        board.db.table("annotations").upsert(
            {
                "session_id": annotation.session_id,
                "run_id": found[0],
                "flagged": int(annotation.flagged),
                "note": annotation.note.strip(),
                "updated_at": now(),
            },
            pk="session_id",
        )


def flagged(board: Blackboard, run_id: int) -> set[int]:
    """The sessions of run ``run_id`` flagged for later."""
    if not has_table(board.db):
        return set()
    sql = "SELECT session_id FROM annotations WHERE run_id = ? AND flagged"
    return {row[0] for row in board.db.execute(sql, [run_id]).fetchall()}


def skipped(board: Blackboard, run_id: int) -> int:
    """How many of run ``run_id``'s sessions the expert skipped."""
    sql = "SELECT COUNT(*) FROM data WHERE run_id = ? AND stop_reason = ?"
    count: int = board.db.execute(sql, [run_id, StopReason.SKIPPED.value]).fetchone()[0]
    return count


def answer_times(board: Blackboard, run_ids: Sequence[int]) -> dict[int, list[float]]:
    """For each run, the live expert's time per answer in ms (messages where it was measured), in message order."""
    out: dict[int, list[float]] = {run_id: [] for run_id in run_ids}
    if not run_ids or "answer_ms" not in table_columns(board.db, "main", "messages"):
        return out
    marks = ",".join("?" * len(run_ids))
    sql = f"""SELECT d.run_id, m.answer_ms FROM messages m JOIN data d ON d.session_id = m.session_id
              WHERE d.run_id IN ({marks}) AND m.sender = ? AND m.answer_ms IS NOT NULL ORDER BY d.ord, m.j"""
    for run_id, ms in board.db.execute(sql, [*run_ids, Sender.HUMAN.value]):
        out[run_id].append(float(ms))
    return out


def median_seconds(times_ms: Sequence[float]) -> float | None:
    return statistics.median(times_ms) / 1000 if times_ms else None


def copy_merged(db: sqlite_utils.Database, src: str) -> None:
    """``pxp merge``: the annotations of attached ``src``'s sessions that the target holds (``temp.merge_map``, kind
    ``session``: copied, brought up to date, or there already). A session's flag and note in the input replace the
    target's when written later (the expert may have noted it after an earlier merge, a reviewer in the target)."""
    if not has_table(db, src):
        return
    db.execute(
        f"""INSERT INTO main.annotations (session_id, run_id, flagged, note, updated_at)
            SELECT s.new, d.run_id, a.flagged, a.note, a.updated_at FROM {src}.annotations a
            JOIN temp.merge_map s ON s.kind = 'session' AND s.old = a.session_id
            JOIN main.data d ON d.session_id = s.new WHERE true
            ON CONFLICT (session_id) DO UPDATE SET flagged = excluded.flagged, note = excluded.note,
              updated_at = excluded.updated_at WHERE excluded.updated_at > annotations.updated_at"""
    )
