"""The expert's first reply of each session (message 2: their judgement of the machine's opening, and their own
answer), with the opening it judged (message 1): what two experts who answered the same instances are compared on
(:mod:`pxp_tui.report.agreement`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pxp_tui.blackboard.store import Blackboard


def first_replies(board: Blackboard, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """One row per session of ``run_ids`` that has a message 2 from the human: ``run_id``, ``instance_id``, ``tag``,
    ``prediction``, and the machine's opening it judged (``opening_prediction``, ``opening_explanation``); in run,
    then session order (a skipped session has none and is left out)."""
    if not run_ids:
        return []
    marks = ", ".join("?" for _ in run_ids)
    sql = f"""
        SELECT d.run_id, d.instance_id, m.tag, m.prediction,
          o.prediction AS opening_prediction, o.explanation AS opening_explanation
        FROM data d JOIN messages m ON m.session_id = d.session_id AND m.j = 2 AND m.sender = 'human'
        LEFT JOIN messages o ON o.session_id = d.session_id AND o.j = 1
        WHERE d.run_id IN ({marks}) AND COALESCE(d.stop_reason, '') <> 'skipped' ORDER BY d.run_id, d.ord
    """
    return [dict(row) for row in board.db.query(sql, list(run_ids))]
