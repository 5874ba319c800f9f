"""EVINCE's measures of every round, kept in ``rounds`` by a trigger on ``messages``.

A round ``r`` is the machine's message ``j = 2r - 1`` and the other agent's answer ``j = 2r``, both
with a ``distribution`` as stated (see :mod:`pxp_tui.protocol.evince`): a message whose reply stated no readable
distribution (``distribution_fallback``) leaves its round out, listed by the ``unstated_rounds`` view. When either message of a round is
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

from pxp_tui.blackboard.information_sql import STATED, STATED_MESSAGES, round_information_sql, session_information_sql
from pxp_tui.protocol.evince import CONVERGED, DIVERGED, NMI, OLD_TOLERANCE, PLATEAU, STALLED, RoundInformation

#: the measures stored per round, in RoundInformation's order (``round`` first)
MEASURES = tuple(name for name in RoundInformation.__dataclass_fields__ if name != "round")

TABLE = {
    "columns": {"session_id": int, "round": int, **{name: float for name in MEASURES}},
    "pk": ("session_id", "round"),
    "not_null": {"session_id", "round"},
    "foreign_keys": [("session_id", "data", "session_id")],
}

#: the messages of NEW's round (the trigger's source), their distributions as stated
_PAIR = (
    f"(SELECT session_id, j, {STATED} AS distribution FROM messages "
    "WHERE session_id = NEW.session_id AND (j + 1) / 2 = (NEW.j + 1) / 2)"
)

TRIGGER = "rounds_after_message"

#: each session's run's measuring settings (smoothing, the label order of the ground metric)
SETTINGS = "SELECT d.session_id, r.smoothing, r.label_order FROM data d JOIN runs r ON r.id = d.run_id"
_COLUMNS = ", ".join(("session_id", "round", *MEASURES))


def trigger_sql() -> str:
    settings = f"{SETTINGS} WHERE d.session_id = NEW.session_id"
    return f"""CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER INSERT ON messages
WHEN NEW.distribution IS NOT NULL AND NEW.distribution_fallback IS NOT 1
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
    db.execute(f"INSERT INTO rounds ({_COLUMNS}) {round_information_sql(STATED_MESSAGES, settings=SETTINGS)}")
    create_trigger(db)


def reclassify(db: sqlite_utils.Database, sessions: str | None = None) -> int:
    """Sessions stored as ``converged`` by a pxp that called every stop of EVINCE's rule so, given the stop
    reason their rule found (:func:`pxp_tui.protocol.evince.outcome`): ``diverged`` where WD rose at their last
    round, ``stalled`` where it did not move with the agents apart, ``converged`` otherwise. The rounds are
    measured as those runs measured them (every stored distribution, a one-hot made up for a reply without
    one included: what their rule read). ``sessions``: a SELECT of the session ids to consider (None: all).
    How many changed."""
    where = "d.stop_reason = 'converged'" + (f" AND d.session_id IN ({sessions})" if sessions else "")
    source = (
        f"(SELECT m.session_id, m.j, m.distribution FROM messages m JOIN data d ON d.session_id = m.session_id WHERE {where})"
    )
    db.execute("DROP TABLE IF EXISTS temp.reclassified")
    db.execute(
        f"""CREATE TEMP TABLE reclassified AS
        WITH measured AS ({round_information_sql(source, settings=SETTINGS)}),
        ends AS (SELECT session_id, wasserstein,
          ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY round DESC) AS back FROM measured)
        SELECT a.session_id,
          CASE WHEN a.wasserstein > b.wasserstein + t.t THEN '{DIVERGED}'
               WHEN a.wasserstein < b.wasserstein - t.t OR a.wasserstein <= t.t THEN '{CONVERGED}'
               ELSE '{STALLED}' END AS reason
        FROM ends a JOIN ends b ON b.session_id = a.session_id AND b.back = 2
        JOIN (SELECT d.session_id, COALESCE(u.stop_tolerance, {OLD_TOLERANCE!r}) AS t
              FROM data d JOIN runs u ON u.id = d.run_id) t ON t.session_id = a.session_id
        WHERE a.back = 1"""
    )
    changed = db.execute(
        """UPDATE data SET stop_reason = (SELECT reason FROM temp.reclassified c WHERE c.session_id = data.session_id)
           WHERE session_id IN (SELECT session_id FROM temp.reclassified WHERE reason IS NOT 'converged')"""
    ).rowcount
    db.execute("DROP TABLE temp.reclassified")
    return int(changed)


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

#: the rounds with their run's stop rule, tolerance and compared MI (runs stored before they were settings: the
#: plateau rule with the tolerance of numerical noise, on the normalised MI, as those runs stopped)
_RULED = f"""(SELECT x.*, COALESCE(u.stop_tolerance, {OLD_TOLERANCE!r}) AS stop_tolerance,
  COALESCE(u.evince_rule, '{PLATEAU}') AS run_rule, COALESCE(u.evince_mi, '{NMI}') AS run_mi
  FROM round_information x JOIN runs u ON u.id = x.run_id)"""

#: every round of a debate with a message whose reply stated no readable distribution although one was asked
#: for (``messages.distribution_fallback``): left out of ``rounds``, the stop rule and the final distribution;
#: ``machine_stated`` and ``human_stated`` say whose is missing (NULL: that message is not written yet)
UNSTATED_VIEW = """
SELECT d.run_id, d.ord, d.instance_id, d.session_id, (m.j + 1) / 2 AS round,
  MAX(CASE WHEN m.j % 2 = 1 THEN m.distribution_fallback IS NOT 1 AND m.distribution IS NOT NULL END) AS machine_stated,
  MAX(CASE WHEN m.j % 2 = 0 THEN m.distribution_fallback IS NOT 1 AND m.distribution IS NOT NULL END) AS human_stated
FROM messages m JOIN data d ON d.session_id = m.session_id
GROUP BY m.session_id, (m.j + 1) / 2
HAVING MAX(m.distribution_fallback = 1)
"""

#: every session with rounds: first and last values, the rounds at which each stop rule first held and what it
#: found there (``rule_at``, ``rule_outcome``: by the run's rule; a session that ends at the bound may have
#: them too), the rounds left out (no two distributions), the final distribution
SESSION_VIEW = f"""
SELECT d.run_id, d.ord, d.instance_id, d.stop_reason, s.*,
  (SELECT COUNT(*) FROM unstated_rounds x WHERE x.session_id = s.session_id) AS rounds_left_out,
  d.final_distribution, d.final_weights
FROM ({session_information_sql(_RULED, "stop_tolerance", "run_rule", "crit", "run_mi").strip()}) s
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


def unstated_rows(db: sqlite_utils.Database, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every round of these runs left out for want of a stated distribution (``unstated_rounds``); [] for a file
    older than the view."""
    if "unstated_rounds" not in db.view_names() or not run_ids:
        return []
    marks = ",".join("?" * len(run_ids))
    return list(db.query(f"SELECT * FROM unstated_rounds WHERE run_id IN ({marks}) ORDER BY session_id, round", list(run_ids)))


def case_distributions(db: sqlite_utils.Database, session_id: int) -> tuple[str, str | None, list[dict[str, Any]]]:
    """A session's instance key and label, and its messages' ``j`` and ``distribution`` as stated (for one
    session's figure)."""
    found = list(
        db.query(
            "SELECT i.key, i.reference_prediction FROM data d JOIN instances i ON i.id = d.instance_id WHERE d.session_id = ?",
            [session_id],
        )
    )
    key, label = (found[0]["key"], found[0]["reference_prediction"]) if found else (str(session_id), None)
    rows = list(db.query(f"SELECT j, {STATED} AS distribution FROM messages WHERE session_id = ? ORDER BY j", [session_id]))
    return key, label, rows
