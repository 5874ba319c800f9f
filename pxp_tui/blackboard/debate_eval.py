"""A debate's distributions against each instance's label: ranks, top-1/top-k accuracy, MRR, confusion.

Views (so that ``sqlite3`` and Datasette users get the report's numbers, the report reads them too):

- ``debate_ranks``: one row per finished session and distribution: ``which`` is ``machine_first`` /
  ``machine_last`` (the first and last distribution the machine stated: a reply that stated none is
  passed over), ``human_first`` / ``human_last`` (the agent in the human's seat: the other machine of a
  debate) and ``final`` (the session's final distribution); ``label`` is the instance's reference
  prediction (DRUG: as canonical SMILES, its ``reference_key``), ``predicted`` the
  distribution's most probable label (a tie: the first in text order), ``p_label`` the label's
  probability, ``rank`` its pessimistic rank (after every label at least as probable; NULL: no mass),
  ``top1``, ``topk`` (within the run's ``--top-k``) and ``reciprocal_rank`` (0 outside the top k);
- ``debate_accuracy``: per run and ``which``, the sessions, top-1 and top-k accuracy and the MRR;
- ``debate_confusion``: per run and ``which``, how many sessions of each label were predicted as each.

A key names the label when it equals the instance's ``reference_key`` (DRUG: the reference's canonical SMILES,
as MATCH compares reactant sets and as the distribution's keys are written:
:mod:`pxp_tui.blackboard.reference_keys`); without one, when the two are equal ignoring ASCII case and
surrounding spaces, as :func:`pxp_tui.protocol.ranking.rank` compares them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlite_utils

from pxp_tui.blackboard.information_sql import STATED_MESSAGES

#: the distributions evaluated, in the report's order
WHICH = ("machine_first", "machine_last", "human_first", "human_last", "final")

_END = (
    "(SELECT {f}(j) FROM " + STATED_MESSAGES + " x "
    "WHERE x.session_id = m.session_id AND x.sender = m.sender AND x.distribution IS NOT NULL)"
)


def _stated(sender: str, end: str, f: str) -> str:
    return (
        f"SELECT m.session_id, '{sender}_{end}' AS which, m.distribution FROM {STATED_MESSAGES} m "
        f"WHERE m.sender = '{sender}' AND m.distribution IS NOT NULL AND m.j = {_END.format(f=f)}"
    )


#: a distribution's key names the instance's label: its reference key exactly where it has one (DRUG: canonical
#: SMILES, case and all), else the reference as written with ASCII case and surrounding spaces ignored
_NAMES_LABEL = """CASE WHEN i.reference_key IS NOT NULL THEN e.key = i.reference_key
         ELSE lower(trim(e.key, ' ')) = lower(trim(i.reference_prediction, ' ')) END"""


RANKS_VIEW = f"""
WITH stated AS (
  {_stated("machine", "first", "MIN")}
  UNION ALL {_stated("machine", "last", "MAX")}
  UNION ALL {_stated("human", "first", "MIN")}
  UNION ALL {_stated("human", "last", "MAX")}
  UNION ALL SELECT session_id, 'final', final_distribution FROM data WHERE final_distribution IS NOT NULL
),
judged AS (
  SELECT d.run_id, d.session_id, d.ord, d.instance_id, COALESCE(i.reference_key, i.reference_prediction) AS label,
    u.top_k AS k, s.which, s.distribution,
    (SELECT SUM(e.value) FROM json_each(s.distribution) e WHERE {_NAMES_LABEL}) AS mass,
    (SELECT SUM(e.value) FROM json_each(s.distribution) e) AS total,
    (SELECT e.key FROM json_each(s.distribution) e ORDER BY e.value DESC, e.key LIMIT 1) AS predicted
  FROM stated s JOIN data d ON d.session_id = s.session_id JOIN instances i ON i.id = d.instance_id
  JOIN runs u ON u.id = d.run_id
  WHERE d.ended_at IS NOT NULL AND d.stop_reason IS NOT 'skipped' AND i.reference_prediction IS NOT NULL
),
ranked AS (
  SELECT *, CASE WHEN mass > 0 THEN (SELECT COUNT(*) FROM json_each(distribution) e WHERE e.value >= mass) END AS rank
  FROM judged
)
SELECT run_id, session_id, ord, instance_id, which, label, predicted, k,
  CASE WHEN total > 0 THEN COALESCE(mass, 0) / total END AS p_label, rank,
  COALESCE(rank = 1, 0) AS top1, COALESCE(rank <= COALESCE(k, rank), 0) AS topk,
  CASE WHEN rank <= COALESCE(k, rank) THEN 1.0 / rank ELSE 0.0 END AS reciprocal_rank
FROM ranked
"""

ACCURACY_VIEW = """
SELECT run_id, which, MAX(k) AS k, COUNT(*) AS sessions, AVG(top1) AS top1_accuracy, AVG(topk) AS topk_accuracy,
  AVG(reciprocal_rank) AS mrr
FROM debate_ranks GROUP BY run_id, which
"""

CONFUSION_VIEW = """
SELECT run_id, which, label, predicted, COUNT(*) AS sessions
FROM debate_ranks GROUP BY run_id, which, label, predicted
"""

VIEWS = {"debate_ranks": RANKS_VIEW, "debate_accuracy": ACCURACY_VIEW, "debate_confusion": CONFUSION_VIEW}


def _rows(db: sqlite_utils.Database, view: str, run_ids: Sequence[int], order: str) -> list[dict[str, Any]]:
    if view not in db.view_names() or not run_ids:
        return []
    marks = ",".join("?" * len(run_ids))
    return list(db.query(f"SELECT * FROM {view} WHERE run_id IN ({marks}) ORDER BY {order}", list(run_ids)))


def ranks(db: sqlite_utils.Database, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every ``debate_ranks`` row of these runs ([] for a file older than the view)."""
    return _rows(db, "debate_ranks", run_ids, "run_id, session_id, which")


def confusion(db: sqlite_utils.Database, run_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every ``debate_confusion`` row of these runs ([] for a file older than the view)."""
    return _rows(db, "debate_confusion", run_ids, "run_id, which, label, predicted")
