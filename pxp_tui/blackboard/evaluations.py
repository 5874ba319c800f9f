"""Machine performance measured on a split (``evaluations``, ``evaluation_items``): written, read back,
copied by ``pxp merge``, and found for a report (pxp's own table, or another tool's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlite_utils

from pxp_tui.blackboard.schema import TABLES, shared_columns, table_columns
from pxp_tui.blackboard.store import Blackboard, insert_id, now

#: the summary columns a measurement is written with (besides run, phase, split, session)
SUMMARY = ("sessions", "context_sessions", "model", "checker")
ITEM = (
    "instance_id",
    "prediction",
    "explanation",
    "correct",
    "agreed",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost",
)


def record(
    board: Blackboard,
    run_id: int,
    phase: str,
    split: str,
    items: Sequence[Mapping[str, Any]],
    *,
    session_id: int | None = None,
    kept: bool | None = None,
    **summary: Any,
) -> dict[str, Any]:
    """Store one measurement and its per-instance outcomes in one transaction; the stored row."""
    n = len(items)
    correct = sum(bool(i["correct"]) for i in items)
    agreed = sum(bool(i["agreed"]) for i in items)
    both = sum(bool(i["correct"]) and bool(i["agreed"]) for i in items)
    costs = [i["cost"] for i in items if i.get("cost") is not None]
    row: dict[str, Any] = {
        "run_id": run_id,
        "phase": phase,
        "split": split,
        "session_id": session_id,
        **{k: summary.get(k) for k in SUMMARY},
        "instances": n,
        "correct": correct,
        "agreed": agreed,
        "both": both,
        "p_correct": round(correct / n, 4) if n else 0.0,
        "p_agreed": round(agreed / n, 4) if n else 0.0,
        "p_both": round(both / n, 4) if n else 0.0,
        "kept": None if kept is None else int(kept),
        "latency_ms": round(sum(i.get("latency_ms") or 0 for i in items), 3),
        "prompt_tokens": sum(i.get("prompt_tokens") or 0 for i in items),
        "completion_tokens": sum(i.get("completion_tokens") or 0 for i in items),
        "cost": sum(costs) if costs else None,
        "created_at": now(),
    }
    with board.db.atomic():
        row["id"] = insert_id(board.db.table("evaluations"), row)
        board.db.table("evaluation_items").insert_all(
            [{"evaluation_id": row["id"], **{k: _cell(item.get(k)) for k in ITEM}} for item in items]
        )
    return row


def _cell(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value


def find(board: Blackboard, run_id: int, phase: str, split: str, session_id: int | None = None) -> dict[str, Any] | None:
    """The measurement of ``run_id`` at this phase and split (and session), if it was taken."""
    sql = "SELECT * FROM evaluations WHERE run_id = ? AND phase = ? AND split = ? AND session_id IS ? ORDER BY id DESC LIMIT 1"
    rows = list(board.db.query(sql, [run_id, phase, split, session_id]))
    return rows[0] if rows else None


def baseline(board: Blackboard, run_id: int) -> dict[str, Any] | None:
    """The LEARN gate's reference: the latest validation measurement of a context that was kept."""
    sql = """SELECT * FROM evaluations WHERE run_id = ? AND split = 'val' AND (phase = 'start' OR kept = 1)
             ORDER BY id DESC LIMIT 1"""
    rows = list(board.db.query(sql, [run_id]))
    return rows[0] if rows else None


def of_run(board: Blackboard, run_id: int) -> list[dict[str, Any]]:
    """Every measurement of ``run_id``, in the order taken."""
    return list(board.db.query("SELECT * FROM evaluations WHERE run_id = ? ORDER BY id", [run_id]))


def ungated(board: Blackboard, run_id: int) -> list[int]:
    """Finished sessions whose after-session step (LEARN gate, test measurement) did not complete."""
    sql = """SELECT session_id FROM data WHERE run_id = ? AND stop_reason IS NOT NULL AND context_kept IS NULL
             ORDER BY ord"""
    return [r[0] for r in board.db.execute(sql, [run_id])]


# -- pxp merge --------------------------------------------------------------------------------------
def copy_merged(db: sqlite_utils.Database, src: str, run: tuple[int, int], dataset: str, skip: int = 0) -> int:
    """Copy the measurements of run ``run[0]`` of attached database ``src`` to run ``run[1]``, all but the first
    ``skip`` (which the target holds already); how many.

    Called by :mod:`pxp_tui.blackboard.merge` inside its transaction, after the run's sessions are mapped
    (``temp.merge_map``, kind ``session``): measurements get new ids and their session's new id, and their items
    the ids of the instances with the same keys in ``dataset``, the target's dataset of the run.
    """
    if not table_columns(db, src, "evaluations"):
        return 0
    shared = [c for c in shared_columns(db, src, "evaluations") if c not in ("id", "run_id")]
    items = [c for c in shared_columns(db, src, "evaluation_items") if c not in ("evaluation_id", "instance_id")]
    rows = db.execute(
        f"""SELECT e.id, s.new, {", ".join("e." + c for c in shared)} FROM {src}.evaluations e
            LEFT JOIN temp.merge_map s ON s.kind = 'session' AND s.old = e.session_id
            WHERE e.run_id = ? ORDER BY e.id LIMIT -1 OFFSET ?""",
        [run[0], skip],
    ).fetchall()
    for old_id, session_id, *values in rows:
        row = dict(zip(shared, values, strict=True), run_id=run[1])
        if "session_id" in row:
            row["session_id"] = session_id
        new_id = insert_id(db.table("evaluations"), row)
        db.execute(
            f"""INSERT INTO main.evaluation_items (evaluation_id, instance_id, {", ".join(items)})
                SELECT ?, i.id, {", ".join("t." + c for c in items)} FROM {src}.evaluation_items t
                JOIN {src}.instances si ON si.id = t.instance_id JOIN main.instances i ON i.dataset = ? AND i.key = si.key
                WHERE t.evaluation_id = ?""",
            [new_id, dataset, old_id],
        )
    return len(rows)


# -- reports --------------------------------------------------------------------------------------------
#: names another tool's evaluation table may have, most likely first (pxp's own is ``evaluations``)
CANDIDATES = ("evaluation", "performance", "machine_performance")


#: the columns of pxp's own ``evaluations`` table (``--evaluate``, ``--learn-gate``) a report shows
SHOWN = ("run_id", "phase", "split", "sessions", "context_sessions", "instances", "p_correct", "p_agreed", "p_both", "kept")


def report_table(board: Blackboard) -> str | None:
    """The evaluation table: pxp's, a known name, else another non-core table with a ``run_id`` column."""
    tables = board.db.table_names()
    if "evaluations" in tables:
        return "evaluations"
    names = [n for n in tables if n not in TABLES and not n.startswith(("sqlite_", "_"))]
    for name in CANDIDATES:
        if name in names and "run_id" in board.db.table(name).columns_dict:
            return name
    for name in names:
        if ("eval" in name or "perf" in name) and "run_id" in board.db.table(name).columns_dict:
            return name
    return None


def report_rows(board: Blackboard, run_ids: Sequence[int]) -> tuple[str, list[dict[str, Any]]] | None:
    """(table, its rows for these runs in stored order), or None when there is nothing evaluated.

    The table is :func:`report_table`; a blackboard without one (or runs never evaluated) has none.
    """
    name = report_table(board)
    if name is None or not run_ids:
        return None
    marks = ",".join("?" * len(run_ids))
    shown = ", ".join(SHOWN) if name == "evaluations" else "*"
    found = list(board.db.query(f"SELECT {shown} FROM [{name}] WHERE run_id IN ({marks}) ORDER BY run_id, rowid", list(run_ids)))
    return (name, found) if found else None
