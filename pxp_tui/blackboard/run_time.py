"""How a run went, in time and in endings: what the run's summary screen shows beside the papers' table."""

from __future__ import annotations

from dataclasses import dataclass, field

from pxp_tui.blackboard.store import Blackboard

_SQL = """SELECT COUNT(*) AS finished,
                 COALESCE(SUM((julianday(ended_at) - julianday(started_at)) * 86400.0), 0) AS in_sessions,
                 COALESCE((julianday(MAX(ended_at)) - julianday(MIN(started_at))) * 86400.0, 0) AS span
          FROM data WHERE run_id = ? AND ended_at IS NOT NULL"""
_ENDINGS = """SELECT stop_reason, COUNT(*) AS n FROM data WHERE run_id = ? AND stop_reason IS NOT NULL
              GROUP BY stop_reason"""


@dataclass(frozen=True)
class RunTime:
    """A run's finished sessions: how many, the time spent in them, and how they ended."""

    finished: int
    in_sessions: float  # seconds, summed over finished sessions (first message asked to last committed)
    span: float  # seconds from the first session's start to the last one's end (pauses included)
    endings: dict[str, int] = field(default_factory=dict)  # stop reason -> sessions


def run_time(board: Blackboard, run_id: int) -> RunTime:
    """The :class:`RunTime` of run ``run_id`` (an unknown run is an error)."""
    board.check_runs([run_id])
    row = next(iter(board.db.query(_SQL, [run_id])))
    endings = {r["stop_reason"]: r["n"] for r in board.db.query(_ENDINGS, [run_id])}
    return RunTime(finished=row["finished"], in_sessions=float(row["in_sessions"]), span=float(row["span"]), endings=endings)
