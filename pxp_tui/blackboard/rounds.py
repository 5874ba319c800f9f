"""EVINCE's measures of every round, kept in ``rounds`` by a trigger on ``messages``.

A round ``r`` is the machine's message ``j = 2r - 1`` and the other agent's answer ``j = 2r``, both
with a ``distribution`` (see :mod:`pxp_tui.protocol.evince`). When either message of a round is
inserted with a distribution, the trigger computes the round's measures in SQL
(:func:`pxp_tui.blackboard.information_sql.round_information_sql`, restricted to that pair) and
stores them, whoever writes: the engine, ``pxp merge`` (which therefore copies ``messages`` and never
``rounds``), a bulk load, in any order. Python's values (:class:`RoundInformation`) are the check:
the tests compare every stored row with them and with scipy.

Each run says how its rounds are measured: ``runs.label_order`` (a JSON array: the ordered ground metric
of the Wasserstein distance, positions 0, 1, ...; NULL: the 0/1 metric, the total variation) and
``runs.smoothing`` (of the smoothed KL divergence and cross entropy; the raw ones are stored beside them,
NULL where undefined). The CRIT verdict of a round is stored with the message that closes it
(``messages.crit``) and shown by the ``round_information`` view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlite_utils

from pxp_tui.blackboard.information_sql import round_information_sql, session_information_sql
from pxp_tui.protocol.evince import OLD_TOLERANCE, PLATEAU, RoundInformation

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

#: each session's run's measuring settings (smoothing, the label order of the ground metric)
SETTINGS = "SELECT d.session_id, r.smoothing, r.label_order FROM data d JOIN runs r ON r.id = d.run_id"
_COLUMNS = ", ".join(("session_id", "round", *MEASURES))


def trigger_sql() -> str:
    settings = f"{SETTINGS} WHERE d.session_id = NEW.session_id"
    return f"""CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER INSERT ON messages
WHEN NEW.distribution IS NOT NULL
BEGIN
  INSERT OR REPLACE INTO rounds ({_COLUMNS})
  {round_information_sql(_PAIR, settings=settings).strip()};
END"""


def create_trigger(db: sqlite_utils.Database) -> None:
    db.execute(trigger_sql())


def recompute(db: sqlite_utils.Database) -> None:
    """Every round measured anew from the stored messages with its run's settings (a migration's step)."""
    db.execute(f"DROP TRIGGER IF EXISTS {TRIGGER}")
    db.execute("DELETE FROM rounds")
    db.execute(f"INSERT INTO rounds ({_COLUMNS}) {round_information_sql('messages', settings=SETTINGS)}")
    create_trigger(db)


#: the largest distance of a run's ground metric: k - 1 for k ordered labels, 1 for 0/1
LARGEST = "CASE WHEN u.label_order IS NULL THEN 1.0 ELSE MAX(1.0, json_array_length(u.label_order) - 1) END"

#: every round with its run and session order (the stored measures), the paper's "WD %" (the distance as a
#: share of the largest of the run's ground metric) and the round's CRIT scores (NULL: not judged)
ROUND_VIEW = f"""
SELECT d.run_id, d.ord, d.instance_id, r.session_id, r.round, {", ".join("r." + m for m in MEASURES)},
  100.0 * r.wasserstein / {LARGEST} AS wasserstein_percent,
  json_extract(m.crit, '$.machine') AS crit_machine, json_extract(m.crit, '$.human') AS crit_human,
  json_extract(m.crit, '$.score') AS crit, json_extract(m.crit, '$.method') AS crit_method
FROM rounds r JOIN data d ON d.session_id = r.session_id JOIN runs u ON u.id = d.run_id
LEFT JOIN messages m ON m.session_id = r.session_id AND m.j = 2 * r.round
"""

#: the rounds with their run's stop rule and tolerance (runs stored before they were settings: the plateau
#: rule with the tolerance of numerical noise, as those runs stopped)
_RULED = f"""(SELECT x.*, COALESCE(u.stop_tolerance, {OLD_TOLERANCE!r}) AS stop_tolerance,
  COALESCE(u.evince_rule, '{PLATEAU}') AS run_rule FROM round_information x JOIN runs u ON u.id = x.run_id)"""

#: every session with rounds: first and last values, the rounds at which each stop rule first held (and
#: ``converged_at``, by the run's rule), the final distribution
SESSION_VIEW = f"""
SELECT d.run_id, d.ord, d.instance_id, d.stop_reason, s.*, d.final_distribution, d.final_weights
FROM ({session_information_sql(_RULED, "stop_tolerance", "run_rule", "crit").strip()}) s
JOIN data d ON d.session_id = s.session_id
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


def case_distributions(db: sqlite_utils.Database, session_id: int) -> tuple[str, str | None, list[dict[str, Any]]]:
    """A session's instance key and label, and its messages' ``j`` and ``distribution`` (for one session's figure)."""
    found = list(
        db.query(
            "SELECT i.key, i.reference_prediction FROM data d JOIN instances i ON i.id = d.instance_id WHERE d.session_id = ?",
            [session_id],
        )
    )
    key, label = (found[0]["key"], found[0]["reference_prediction"]) if found else (str(session_id), None)
    rows = list(db.query("SELECT j, distribution FROM messages WHERE session_id = ? ORDER BY j", [session_id]))
    return key, label, rows
