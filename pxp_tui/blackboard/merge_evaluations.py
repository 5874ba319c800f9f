"""Merging the machine-performance tables (``evaluations``, ``evaluation_items``) of a copied run.

Called by :mod:`pxp_tui.blackboard.merge` inside its transaction, after the runs, sessions and
instances of source ``src`` are mapped (``temp.merge_map``): measurements get new ids, their run's
and session's new ids, and their items the target's instance ids.
"""

from __future__ import annotations

import sqlite_utils

from pxp_tui.blackboard.schema import shared_columns, table_columns


def copy(db: sqlite_utils.Database, src: str, session_offset: int) -> int:
    """Copy the measurements of the runs mapped from ``src``; how many."""
    if not table_columns(db, src, "evaluations"):
        return 0
    shared = [c for c in shared_columns(db, src, "evaluations") if c != "id"]
    items = [c for c in shared_columns(db, src, "evaluation_items") if c not in ("evaluation_id", "instance_id")]
    rows = db.execute(
        f"""SELECT e.id, r.new, {", ".join("e." + c for c in shared)} FROM {src}.evaluations e
            JOIN temp.merge_map r ON r.kind = 'run' AND r.old = e.run_id ORDER BY e.id"""
    ).fetchall()
    for old_id, run_id, *values in rows:
        row = dict(zip(shared, values), run_id=run_id)
        if row.get("session_id") is not None:
            row["session_id"] += session_offset
        new_id = db["evaluations"].insert(row).last_pk
        db.execute(
            f"""INSERT INTO main.evaluation_items (evaluation_id, instance_id, {", ".join(items)})
                SELECT ?, i.new, {", ".join("t." + c for c in items)} FROM {src}.evaluation_items t
                JOIN temp.merge_map i ON i.kind = 'instance' AND i.old = t.instance_id WHERE t.evaluation_id = ?""",
            [new_id, old_id],
        )
    return len(rows)
