"""Intelligibility versus message bound (the papers' "intelligibility vs length" figure), in SQL.

Equal to :func:`pxp_tui.protocol.curve` over each run's finished sessions (skipped ones left out), without reading the
messages: under bound ``j*`` a session's flags follow from where each agent first sent each kind of
tag (kept in ``data``, see :mod:`pxp_tui.blackboard.firsts`). Sessions with the same firsts are
counted together, so the work is one pass over the runs' rows of ``data``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.blackboard.firsts import COLUMNS, class_conditions
from pxp_tui.blackboard.schema import NOT_SKIPPED
from pxp_tui.blackboard.store import Blackboard
from pxp_tui.protocol import RunCounts

#: stands for "never" in comparisons with a bound
_NEVER = 1 << 30


def _sums() -> str:
    conditions = class_conditions(lambda agent, kind: f"COALESCE({agent}_first_{kind}, {_NEVER}) <= b.j")
    return ",\n  ".join(f"SUM(s.k * {sql}) AS {name}" for name, sql in conditions.items())


def run_curves(board: Blackboard, run_ids: Sequence[int]) -> dict[int, list[RunCounts]]:
    """For each run, its counts under message bound ``j* = 1..n`` (element ``j* - 1``)."""
    if not run_ids:
        return {}
    marks = ",".join("?" * len(run_ids))
    bounds = {row[0]: row[1] for row in board.db.execute(f"SELECT id, n FROM runs WHERE id IN ({marks})", list(run_ids))}
    missing = [r for r in run_ids if r not in bounds]
    if missing:
        raise board.no_run(missing[0])
    firsts = ", ".join(COLUMNS)
    sql = f"""
    WITH RECURSIVE b(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM b WHERE j < ?),
    s AS (
      SELECT run_id, {firsts}, COUNT(*) AS k FROM data
      WHERE run_id IN ({marks}) AND ended_at IS NOT NULL AND {NOT_SKIPPED} GROUP BY run_id, {firsts}
    )
    SELECT s.run_id, b.j, SUM(s.k) AS sessions,
      {_sums()}
    FROM s, b GROUP BY s.run_id, b.j"""
    out = {r: [RunCounts() for _ in range(bounds[r])] for r in run_ids}
    for row in board.db.query(sql, [max(bounds.values()), *run_ids]):
        run, j = row.pop("run_id"), row.pop("j")
        if j <= bounds[run]:
            out[run][j - 1] = RunCounts(**row)
    return out
