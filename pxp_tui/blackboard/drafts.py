"""The expert's unsent answer (``drafts``): the tag, prediction and explanation as they are being typed, kept so that
quitting, a crash or a closed terminal mid-answer loses nothing typed.

A draft is not a message: the protocol's messages are append-only and exact, and a draft is neither. One row per
(session, message ``j``) the expert is answering, replaced as they type (the app saves it a moment after each change)
and deleted, in the same transaction, when that message (or a later one) is stored or the session ends (triggers on
``messages`` and ``data``, so that every writer keeps the rule). Files from before the table read as having none.
``pxp merge`` does not copy drafts: a draft belongs to the file its expert is typing into.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from pxp_tui.blackboard.schema import table_columns
from pxp_tui.blackboard.store import Blackboard, now


@dataclass(frozen=True)
class Draft:
    """What the expert had typed for message ``j`` of session ``session_id`` and not sent."""

    session_id: int
    j: int
    tag: str | None
    prediction: str
    explanation: str


def has_table(db: sqlite_utils.Database) -> bool:
    return bool(table_columns(db, "main", "drafts"))


def save(board: Blackboard, draft: Draft) -> bool:
    """Keep ``draft`` (replacing the session's draft for that message), in one transaction as the writer. False
    (nothing written) if the message was stored meanwhile or the session has ended: a draft outlives neither."""
    with board.transaction():
        row = board.db.execute(
            "SELECT d.run_id FROM data d WHERE d.session_id = ? AND d.ended_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM messages m WHERE m.session_id = d.session_id AND m.j >= ?)",
            [draft.session_id, draft.j],
        ).fetchone()
        if row is None:
            return False
        board.db.execute(
            "INSERT INTO drafts (session_id, j, run_id, tag, prediction, explanation, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, j) DO UPDATE SET tag = excluded.tag, "
            "prediction = excluded.prediction, explanation = excluded.explanation, updated_at = excluded.updated_at",
            [draft.session_id, draft.j, row[0], draft.tag, draft.prediction, draft.explanation, now()],
        )
        return True


def of_run(board: Blackboard, run_id: int) -> dict[tuple[int, int], Draft]:
    """Run ``run_id``'s drafts by (session, j)."""
    if not has_table(board.db):
        return {}
    sql = "SELECT session_id, j, tag, prediction, explanation FROM drafts WHERE run_id = ?"
    return {
        (row[0], row[1]): Draft(row[0], row[1], row[2], row[3] or "", row[4] or "")
        for row in board.db.execute(sql, [run_id]).fetchall()
    }
