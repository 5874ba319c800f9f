"""EVINCE's measures recomputed in SQL from messages' JSON distributions (issue 10; not in the schema yet).

:func:`round_information_sql` is the body of a future ``round_information`` view: one row per round
(the machine's message at ``j = 2r - 1`` and the answer at ``j = 2r``, both with a distribution) with
the columns of :class:`pxp_tui.protocol.evince.RoundInformation`, computed by SQLite alone (``json_each``,
``log2``, window functions: SQLite 3.35 or later) so that ``sqlite3`` and Datasette users get the
numbers the app shows, and the two computations check each other. :func:`session_information_sql`
summarises a session's rounds as :func:`pxp_tui.protocol.evince.summarise` does.

The conventions are those of :mod:`pxp_tui.protocol.information`: each distribution is normalised
over its own keys, the label set is the union of both keys, KL and cross entropy use the smoothed
pair, the Wasserstein distance follows the label order when every label has a position and is the
total variation otherwise (labels missing from both count through the positions' spacing), and mutual
information is that of the maximal-agreement coupling (here in closed form, where Python builds the
joint: the two check each other). Every join stays within one pair of messages, so the cost grows
linearly with the number of rounds.
"""

from __future__ import annotations

from collections.abc import Iterable

from pxp_tui.protocol.evince import TOLERANCE
from pxp_tui.protocol.information import SMOOTHING


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def round_information_sql(source: str = "messages", order: Iterable[str] = ()) -> str:
    """A SELECT of every round's measures from ``source`` (columns ``session_id``, ``j``, ``distribution``).

    ``order`` lists labels in their order (RAD's five conditions), for the Wasserstein distance.
    """
    labels = list(order)
    positions = (
        "VALUES " + ", ".join(f"({_quote(x)}, {i})" for i, x in enumerate(labels)) if labels else "SELECT NULL, NULL WHERE 0"
    )
    e = repr(float(SMOOTHING))
    return f"""
WITH pairs AS (
  SELECT a.session_id, b.j / 2 AS round, a.distribution AS pa, b.distribution AS pb
  FROM {source} a JOIN {source} b ON b.session_id = a.session_id AND b.j = a.j + 1
  WHERE a.j % 2 = 1 AND a.distribution IS NOT NULL AND b.distribution IS NOT NULL
),
positions(label, position) AS ({positions}),
cells AS (
  SELECT session_id, round, label, SUM(pv) AS p_raw, SUM(qv) AS q_raw FROM (
    SELECT pr.session_id, pr.round, e.key AS label, e.value AS pv, 0.0 AS qv FROM pairs pr, json_each(pr.pa) e
    UNION ALL
    SELECT pr.session_id, pr.round, f.key, 0.0, f.value FROM pairs pr, json_each(pr.pb) f
  ) GROUP BY session_id, round, label
),
norm AS (
  SELECT c.session_id, c.round, c.label, o.position,
    c.p_raw / SUM(c.p_raw) OVER w AS p, c.q_raw / SUM(c.q_raw) OVER w AS q,
    COUNT(*) OVER w AS c, COUNT(o.position) OVER w AS positioned
  FROM cells c LEFT JOIN positions o ON o.label = c.label
  WINDOW w AS (PARTITION BY c.session_id, c.round)
),
terms AS (
  SELECT *, MIN(p, q) AS agreed, p - MIN(p, q) AS lp, q - MIN(p, q) AS lq, (p + q) / 2 AS m,
    (p + {e}) / (1 + c * {e}) AS ps, (q + {e}) / (1 + c * {e}) AS qs,
    SUM(p - q) OVER (PARTITION BY session_id, round ORDER BY position ROWS UNBOUNDED PRECEDING) AS gap,
    LEAD(position) OVER (PARTITION BY session_id, round ORDER BY position) - position AS step
  FROM norm
),
sums AS (
  SELECT session_id, round,
    MAX(0.0, -SUM(CASE WHEN p > 0 THEN p * log2(p) ELSE 0 END)) AS entropy_machine,
    MAX(0.0, -SUM(CASE WHEN q > 0 THEN q * log2(q) ELSE 0 END)) AS entropy_human,
    MIN(1.0, MAX(0.0, (SUM(CASE WHEN p > 0 THEN p * log2(p / m) ELSE 0 END)
                       + SUM(CASE WHEN q > 0 THEN q * log2(q / m) ELSE 0 END)) / 2)) AS js_divergence,
    CASE WHEN MIN(positioned) = MIN(c) THEN SUM(ABS(gap) * COALESCE(step, 0))
         ELSE MIN(1.0, SUM(ABS(p - q)) / 2) END AS wasserstein,
    MAX(0.0, SUM(ps * log2(ps / qs))) AS kl_machine_human,
    MAX(0.0, SUM(qs * log2(qs / ps))) AS kl_human_machine,
    -SUM(ps * log2(qs)) AS cross_entropy_machine_human,
    -SUM(qs * log2(ps)) AS cross_entropy_human_machine,
    -- the coupling's diagonal, min(p, q) log2(1 / max(p, q)), and its leftovers: with Lp = sum lp,
    -- Lq = sum lq, the off-diagonal cells lp(x) lq(y) / Lp add
    -- (Lq / Lp) sum lp log2(lp / p) + sum lq log2(lq / q) - Lq log2(Lp), no self-join needed
    SUM(CASE WHEN agreed > 0 THEN agreed * log2(agreed / (p * q)) ELSE 0 END) AS mi_agreed,
    SUM(lp) AS left_p, SUM(lq) AS left_q,
    SUM(CASE WHEN lp > 0 THEN lp * log2(lp / p) ELSE 0 END) AS lp_terms,
    SUM(CASE WHEN lq > 0 THEN lq * log2(lq / q) ELSE 0 END) AS lq_terms,
    SUM(CASE WHEN p = 1 AND q = 1 THEN 1 ELSE 0 END) AS same_certain
  FROM terms GROUP BY session_id, round
),
measured AS (
  SELECT *, MAX(0.0, mi_agreed + CASE WHEN left_p > 0 AND left_q > 0
    THEN left_q / left_p * lp_terms + lq_terms - left_q * log2(left_p) ELSE 0 END) AS mutual_information
  FROM sums
)
SELECT session_id, round, entropy_machine, entropy_human, js_divergence, wasserstein,
  kl_machine_human, kl_human_machine, cross_entropy_machine_human, cross_entropy_human_machine,
  mutual_information,
  CASE WHEN MAX(entropy_machine, entropy_human) = 0 THEN (same_certain > 0) * 1.0
       ELSE MIN(1.0, mutual_information / MAX(entropy_machine, entropy_human)) END AS normalised_mi
FROM measured
"""


def session_information_sql(rounds: str = "round_information", tolerance: float = TOLERANCE) -> str:
    """A SELECT of each session's summary from ``rounds`` (the rows of :func:`round_information_sql`)."""
    t = repr(float(tolerance))
    return f"""
WITH steps AS (
  SELECT session_id, round, wasserstein, normalised_mi, js_divergence,
    LAG(wasserstein) OVER w AS wd_before, LAG(normalised_mi) OVER w AS mi_before,
    FIRST_VALUE(wasserstein) OVER w AS wd_first, FIRST_VALUE(normalised_mi) OVER w AS mi_first,
    FIRST_VALUE(js_divergence) OVER w AS jsd_first,
    ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY round DESC) AS from_end
  FROM {rounds} WINDOW w AS (PARTITION BY session_id ORDER BY round)
)
SELECT session_id,
  COUNT(*) AS rounds,
  MIN(wd_first) AS wasserstein_first,
  MAX(CASE WHEN from_end = 1 THEN wasserstein END) AS wasserstein_last,
  MIN(mi_first) AS normalised_mi_first,
  MAX(CASE WHEN from_end = 1 THEN normalised_mi END) AS normalised_mi_last,
  MIN(jsd_first) AS js_divergence_first,
  MAX(CASE WHEN from_end = 1 THEN js_divergence END) AS js_divergence_last,
  MIN(CASE WHEN wd_before IS NOT NULL AND NOT (wasserstein < wd_before - {t} OR normalised_mi > mi_before + {t})
      THEN round END) AS converged_at,
  MAX(CASE WHEN from_end = 1 THEN wasserstein < wd_first - {t} END) AS wasserstein_decreased,
  MAX(CASE WHEN from_end = 1 THEN normalised_mi > mi_first + {t} END) AS mi_increased
FROM steps GROUP BY session_id
"""
