"""Intelligibility versus message bound (the papers' "intelligibility vs length" figure), in SQL.

Equal to :func:`pxp_tui.protocol.curve` over each run's finished sessions, without reading the
messages into Python: per session, SQL finds where each agent first sent a non-INIT tag, a RATIFY or
REVISE, a REFUTE or REJECT, a REVISE and a REJECT; under bound ``j*`` an agent is

- one-way if its first RATIFY/REVISE is at or before ``j*`` and its first REJECT is not;
- strong if its first non-INIT tag is at or before ``j*`` and its first REFUTE/REJECT is not;
- ultra-strong if strong and its first REVISE is at or before ``j*``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.blackboard.store import Blackboard, BlackboardError
from pxp_tui.protocol import RunCounts

_FIRSTS = {
    "tag": "m.tag <> 'INIT'",
    "good": "m.tag IN ('RATIFY', 'REVISE')",
    "bad": "m.tag IN ('REFUTE', 'REJECT')",
    "revise": "m.tag = 'REVISE'",
    "reject": "m.tag = 'REJECT'",
}
_NEVER = 1 << 30


def _firsts() -> str:
    return ",\n      ".join(
        f"COALESCE(MIN(CASE WHEN m.sender = '{agent}' AND {cond} THEN m.j END), {_NEVER}) AS {agent[0]}_{name}"
        for agent in ("machine", "human")
        for name, cond in _FIRSTS.items()
    )


def _flags() -> str:
    def one_way(a: str) -> str:
        return f"({a}_good <= b.j AND {a}_reject > b.j)"

    def strong(a: str) -> str:
        return f"({a}_tag <= b.j AND {a}_bad > b.j)"

    return ",\n  ".join(
        [
            f"SUM({one_way('h')}) AS one_way_human",
            f"SUM({one_way('m')}) AS one_way_machine",
            f"SUM({one_way('m')} AND {one_way('h')}) AS two_way",
            f"SUM({strong('h')}) AS strong_human",
            f"SUM({strong('m')}) AS strong_machine",
            f"SUM({strong('h')} AND h_revise <= b.j) AS ultra_strong_human",
            f"SUM({strong('m')} AND m_revise <= b.j) AS ultra_strong_machine",
        ]
    )


def run_curves(board: Blackboard, run_ids: Sequence[int]) -> dict[int, list[RunCounts]]:
    """For each run, its counts under message bound ``j* = 1..n`` (element ``j* - 1``)."""
    if not run_ids:
        return {}
    marks = ",".join("?" * len(run_ids))
    bounds = {row[0]: row[1] for row in board.db.execute(f"SELECT id, n FROM runs WHERE id IN ({marks})", list(run_ids))}
    missing = [r for r in run_ids if r not in bounds]
    if missing:
        raise BlackboardError(f"no run {missing[0]} in {board.path or 'the blackboard'}")
    sql = f"""
    WITH RECURSIVE b(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM b WHERE j < ?),
    s AS (
      SELECT d.run_id,
      {_firsts()}
      FROM data d JOIN messages m ON m.session_id = d.session_id
      WHERE d.run_id IN ({marks}) AND d.ended_at IS NOT NULL
      GROUP BY d.session_id
    )
    SELECT s.run_id, b.j, COUNT(*) AS sessions,
      {_flags()}
    FROM s, b GROUP BY s.run_id, b.j"""
    out = {r: [RunCounts() for _ in range(bounds[r])] for r in run_ids}
    for row in board.db.query(sql, [max(bounds.values()), *run_ids]):
        run, j = row.pop("run_id"), row.pop("j")
        if j <= bounds[run]:
            out[run][j - 1] = RunCounts(**row)
    return out
