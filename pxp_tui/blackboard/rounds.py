"""EVINCE's measures of every round, kept in ``rounds`` by a trigger on ``messages`` (issue 10).

A round ``r`` is the machine's message ``j = 2r - 1`` and the other agent's answer ``j = 2r``, both
with a ``distribution`` (see :mod:`pxp_tui.protocol.evince`). When either message of a round is
inserted with a distribution, the trigger computes the round's measures in SQL
(:func:`pxp_tui.blackboard.information_sql.round_information_sql`, restricted to that pair) and
stores them, whoever writes: the engine, ``pxp merge`` (which therefore copies ``messages`` and never
``rounds``), a bulk load, in any order. Python's values (:class:`RoundInformation`) are the check:
the tests compare every stored row with them and with scipy.

The Wasserstein distance uses RAD's five conditions at positions 0..4 in
:data:`pxp_tui.tasks.rad.labels.LABELS` order; labels without a position (DRUG's reactant sets) make
it the total variation, as :meth:`RoundInformation.measure` does with ``order=None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlite_utils

from pxp_tui.blackboard.information_sql import round_information_sql, session_information_sql
from pxp_tui.protocol.evince import RoundInformation
from pxp_tui.tasks.rad.labels import LABELS

#: the measures stored per round, in RoundInformation's order (``round`` first)
MEASURES = tuple(name for name in RoundInformation.__dataclass_fields__ if name != "round")

TABLE = {
    "columns": {"session_id": int, "round": int, **{name: float for name in MEASURES}},
    "pk": ("session_id", "round"),
    "not_null": {"session_id", "round"},
    "foreign_keys": [("session_id", "data", "session_id")],
}

#: the messages of NEW's round (the trigger's source)
_PAIR = "(SELECT session_id, j, distribution FROM messages WHERE session_id = NEW.session_id AND (j + 1) / 2 = (NEW.j + 1) / 2)"

TRIGGER = "rounds_after_message"


def trigger_sql() -> str:
    columns = ", ".join(("session_id", "round", *MEASURES))
    return f"""CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER INSERT ON messages
WHEN NEW.distribution IS NOT NULL
BEGIN
  INSERT OR REPLACE INTO rounds ({columns})
  {round_information_sql(_PAIR, LABELS).strip()};
END"""


def create_trigger(db: sqlite_utils.Database) -> None:
    db.execute(trigger_sql())


#: every round with its run and session order (the stored measures)
ROUND_VIEW = f"""
SELECT d.run_id, d.ord, d.instance_id, r.session_id, r.round, {", ".join("r." + m for m in MEASURES)}
FROM rounds r JOIN data d ON d.session_id = r.session_id
"""

#: every session with rounds: first and last values, the round of convergence, the final distribution
SESSION_VIEW = f"""
SELECT d.run_id, d.ord, d.instance_id, d.stop_reason, s.*, d.final_distribution, d.final_weights
FROM ({session_information_sql("rounds").strip()}) s JOIN data d ON d.session_id = s.session_id
"""


def round_rows(db: sqlite_utils.Database, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every stored round of these runs (``round_information``); [] for a file older than the view."""
    if "round_information" not in db.view_names() or not run_ids:
        return []
    marks = ",".join("?" * len(run_ids))
    return list(db.query(f"SELECT * FROM round_information WHERE run_id IN ({marks}) ORDER BY session_id, round", list(run_ids)))


def session_rows(db: sqlite_utils.Database, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every session of these runs with rounds (``session_information``); [] for a file older than the view."""
    if "session_information" not in db.view_names() or not run_ids:
        return []
    marks = ",".join("?" * len(run_ids))
    return list(db.query(f"SELECT * FROM session_information WHERE run_id IN ({marks}) ORDER BY session_id", list(run_ids)))
