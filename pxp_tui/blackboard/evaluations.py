"""Machine performance measured on a split (``evaluations``, ``evaluation_items``), written and read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pxp_tui.blackboard.store import Blackboard, now

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
        row["id"] = board.db["evaluations"].insert(row).last_pk
        board.db["evaluation_items"].insert_all(
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
