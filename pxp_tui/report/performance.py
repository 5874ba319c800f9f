"""Machine performance over a run, when it was evaluated (the evaluation table of the LEARN gate).

The table is written by the evaluation of controlled experiments; a blackboard without it (or runs
never evaluated) simply has no performance section. Its columns are shown as stored, in the order
the evaluations were made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pxp_tui.blackboard import Blackboard
from pxp_tui.blackboard.schema import TABLES

#: names another tool's evaluation table may have, most likely first (pxp's own is ``evaluations``)
CANDIDATES = ("evaluation", "performance", "machine_performance")


#: the columns of pxp's own ``evaluations`` table (``--evaluate``, ``--learn-gate``) a report shows
SHOWN = ("run_id", "phase", "split", "sessions", "context_sessions", "instances", "p_correct", "p_agreed", "p_both", "kept")


def table_name(board: Blackboard) -> str | None:
    """The evaluation table: pxp's, a known name, else another non-core table with a ``run_id`` column."""
    tables = board.db.table_names()
    if "evaluations" in tables:
        return "evaluations"
    names = [n for n in tables if n not in TABLES and not n.startswith(("sqlite_", "_"))]
    for name in CANDIDATES:
        if name in names and "run_id" in board.db[name].columns_dict:
            return name
    for name in names:
        if ("eval" in name or "perf" in name) and "run_id" in board.db[name].columns_dict:
            return name
    return None


def rows(board: Blackboard, run_ids: Sequence[int]) -> tuple[str, list[dict[str, Any]]] | None:
    """(table, its rows for these runs in stored order), or None when there is nothing evaluated."""
    name = table_name(board)
    if name is None or not run_ids:
        return None
    marks = ",".join("?" * len(run_ids))
    shown = ", ".join(SHOWN) if name == "evaluations" else "*"
    found = list(board.db.query(f"SELECT {shown} FROM [{name}] WHERE run_id IN ({marks}) ORDER BY run_id, rowid", list(run_ids)))
    return (name, found) if found else None
