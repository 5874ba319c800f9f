"""EVINCE's measures computed in SQL from messages' JSON distributions (the ``rounds`` trigger, the views).

:func:`round_information_sql` computes one row per round
(the machine's message at ``j = 2r - 1`` and the answer at ``j = 2r``, both with a distribution) with
the columns of :class:`pxp_tui.protocol.evince.RoundInformation`, computed by SQLite alone (``json_each``,
``log2``, window functions: SQLite 3.35 or later) so that ``sqlite3`` and Datasette users get the
numbers the app shows, and the two computations check each other. :func:`session_information_sql`
summarises a session's rounds as :func:`pxp_tui.protocol.evince.summarise` does. A message marked as stating
no distribution (``distribution_fallback``) has none here: :data:`STATED` is the distribution as read.

The conventions are those of :mod:`pxp_tui.protocol.information`: each distribution is normalised
over its own keys, the label set is the union of both keys, KL and cross entropy use the smoothed
pair (the raw KL and cross entropy are NULL where undefined: infinite), the Wasserstein distance follows
the run's label order when every label has a position and is the total variation (the 0/1 metric)
otherwise (labels missing from both count through the positions' spacing), and mutual
information is that of the maximal-agreement coupling (here in closed form, where Python builds the
joint: the two check each other). Every join stays within one pair of messages, so the cost grows
linearly with the number of rounds.
"""

from __future__ import annotations

from collections.abc import Iterable

from pxp_tui.protocol.evince import CONVERGED, DIVERGED, FIG1, MI, NMI, STALLED, TOLERANCE
from pxp_tui.protocol.information import SMOOTHING

#: a message's distribution as its agent stated it: none where the reply stated none readable (a file of an
#: older pxp holds a one-hot on the prediction there, which is never measured)
STATED = "CASE WHEN distribution_fallback = 1 THEN NULL ELSE distribution END"
#: the messages with their distributions as stated (a source for :func:`round_information_sql`)
STATED_MESSAGES = f"(SELECT session_id, j, sender, {STATED} AS distribution FROM messages)"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def round_information_sql(
    source: str = "messages", order: Iterable[str] = (), smoothing: float = SMOOTHING, settings: str | None = None
) -> str:
    """A SELECT of every round's measures from ``source`` (columns ``session_id``, ``j``, ``distribution``).

    The ground metric's label order (positions 0, 1, ...; none: the 0/1 metric) and the smoothing are
    ``order`` and ``smoothing`` for every session, or, with ``settings`` (a SELECT of ``session_id``,
    ``smoothing``, ``label_order`` as a JSON array or NULL), each session's own run's.
    """
    if settings is None:
        labels = list(order)
        listed = "json_array(" + ", ".join(_quote(x) for x in labels) + ")" if labels else "NULL"
        settings = f"SELECT DISTINCT session_id, {float(smoothing)!r} AS smoothing, {listed} AS label_order FROM {source}"
    return f"""
WITH settings AS ({settings}),
pairs AS (
  SELECT a.session_id, b.j / 2 AS round, a.distribution AS pa, b.distribution AS pb,
    COALESCE(s.smoothing, {float(SMOOTHING)!r}) AS e, s.label_order
  FROM {source} a JOIN {source} b ON b.session_id = a.session_id AND b.j = a.j + 1
  LEFT JOIN settings s ON s.session_id = a.session_id
  WHERE a.j % 2 = 1 AND a.distribution IS NOT NULL AND b.distribution IS NOT NULL
),
positions AS (
  SELECT pr.session_id, pr.round, o.value AS label, CAST(o.key AS INTEGER) AS position
  FROM pairs pr, json_each(pr.label_order) o WHERE pr.label_order IS NOT NULL
),
cells AS (
  SELECT session_id, round, label, SUM(pv) AS p_raw, SUM(qv) AS q_raw, MAX(e) AS e FROM (
    SELECT pr.session_id, pr.round, x.key AS label, x.value AS pv, 0.0 AS qv, pr.e FROM pairs pr, json_each(pr.pa) x
    UNION ALL
    SELECT pr.session_id, pr.round, y.key, 0.0, y.value, pr.e FROM pairs pr, json_each(pr.pb) y
  ) GROUP BY session_id, round, label
),
norm AS (
  SELECT c.session_id, c.round, c.label, o.position, c.e,
    c.p_raw / SUM(c.p_raw) OVER w AS p, c.q_raw / SUM(c.q_raw) OVER w AS q,
    COUNT(*) OVER w AS c, COUNT(o.position) OVER w AS positioned
  FROM cells c LEFT JOIN positions o ON o.session_id = c.session_id AND o.round = c.round AND o.label = c.label
  WINDOW w AS (PARTITION BY c.session_id, c.round)
),
terms AS (
  SELECT *, MIN(p, q) AS agreed, p - MIN(p, q) AS lp, q - MIN(p, q) AS lq, (p + q) / 2 AS m,
    (p + e) / (1 + c * e) AS ps, (q + e) / (1 + c * e) AS qs,
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
    MAX(0.0, SUM(CASE WHEN ps > 0 THEN ps * log2(ps / qs) ELSE 0 END)) AS kl_machine_human,
    MAX(0.0, SUM(CASE WHEN qs > 0 THEN qs * log2(qs / ps) ELSE 0 END)) AS kl_human_machine,
    -SUM(CASE WHEN ps > 0 THEN ps * log2(qs) ELSE 0 END) AS cross_entropy_machine_human,
    -SUM(CASE WHEN qs > 0 THEN qs * log2(ps) ELSE 0 END) AS cross_entropy_human_machine,
    -- the raw measures are undefined (NULL: infinite) where the second distribution has a zero under the first's mass
    CASE WHEN SUM(p > 0 AND q = 0) THEN NULL ELSE MAX(0.0, SUM(CASE WHEN p > 0 THEN p * log2(p / q) ELSE 0 END)) END
      AS kl_machine_human_raw,
    CASE WHEN SUM(q > 0 AND p = 0) THEN NULL ELSE MAX(0.0, SUM(CASE WHEN q > 0 THEN q * log2(q / p) ELSE 0 END)) END
      AS kl_human_machine_raw,
    CASE WHEN SUM(p > 0 AND q = 0) THEN NULL ELSE -SUM(CASE WHEN p > 0 THEN p * log2(q) ELSE 0 END) END
      AS cross_entropy_machine_human_raw,
    CASE WHEN SUM(q > 0 AND p = 0) THEN NULL ELSE -SUM(CASE WHEN q > 0 THEN q * log2(p) ELSE 0 END) END
      AS cross_entropy_human_machine_raw,
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
       ELSE MIN(1.0, mutual_information / MAX(entropy_machine, entropy_human)) END AS normalised_mi,
  kl_machine_human_raw, kl_human_machine_raw, cross_entropy_machine_human_raw, cross_entropy_human_machine_raw
FROM measured
"""


def session_information_sql(
    rounds: str = "round_information",
    tolerance: str | float = TOLERANCE,
    rule: str = f"'{FIG1}'",
    crit: str = "NULL",
    mi: str = f"'{NMI}'",
) -> str:
    """A SELECT of each session's summary from ``rounds`` (the rows of :func:`round_information_sql`).

    ``tolerance``, ``rule`` (the run's EVINCE rule: ``rule_at`` and ``rule_outcome`` follow it), ``crit`` (the
    round's CRIT score) and ``mi`` (which MI the rules compare: ``'nmi'`` or ``'mi'``) are SQL expressions over a
    row of ``rounds``: constants, or its columns. A round left out (no two distributions) is not in ``rounds``: each
    round is compared with the last one before it there, as :func:`pxp_tui.protocol.evince.summarise` does.
    """
    t = repr(float(tolerance)) if isinstance(tolerance, (int, float)) else tolerance
    return f"""
WITH compared AS (
  SELECT *, CASE WHEN {mi} = '{MI}' THEN mutual_information ELSE normalised_mi END AS compared_mi FROM {rounds}
),
steps AS (
  SELECT session_id, round, wasserstein, normalised_mi, js_divergence, compared_mi, {t} AS t, {rule} AS rule,
    {crit} AS crit, {mi} AS mi,
    LAG(wasserstein) OVER w AS wd_before, LAG(compared_mi) OVER w AS mi_before, LAG({crit}) OVER w AS crit_before,
    FIRST_VALUE(wasserstein) OVER w AS wd_first, FIRST_VALUE(normalised_mi) OVER w AS mi_first,
    FIRST_VALUE(js_divergence) OVER w AS jsd_first,
    ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY round DESC) AS from_end
  FROM compared WINDOW w AS (PARTITION BY session_id ORDER BY round)
),
rules AS (
  SELECT *,
    wd_before IS NOT NULL AND NOT (wasserstein < wd_before - t OR compared_mi > mi_before + t) AS plateau,
    wd_before IS NOT NULL AND (wasserstein > wd_before + t OR compared_mi < mi_before - t
      OR (crit IS NOT NULL AND crit_before IS NOT NULL AND crit / 10.0 < crit_before / 10.0 - t)) AS fig1,
    CASE WHEN wasserstein > wd_before + t THEN '{DIVERGED}'
         WHEN wasserstein < wd_before - t OR wasserstein <= t THEN '{CONVERGED}'
         ELSE '{STALLED}' END AS outcome
  FROM steps
),
firsts AS (
  SELECT session_id,
    MIN(CASE WHEN plateau THEN round END) AS plateau_at,
    MIN(CASE WHEN fig1 THEN round END) AS fig1_at,
    MIN(CASE WHEN (rule = '{FIG1}' AND fig1) OR (rule IS NOT '{FIG1}' AND plateau) THEN round END) AS rule_at
  FROM rules GROUP BY session_id
)
SELECT r.session_id,
  COUNT(*) AS rounds,
  MAX(r.round) AS last_round,
  MIN(wd_first) AS wasserstein_first,
  MAX(CASE WHEN from_end = 1 THEN wasserstein END) AS wasserstein_last,
  MIN(mi_first) AS normalised_mi_first,
  MAX(CASE WHEN from_end = 1 THEN normalised_mi END) AS normalised_mi_last,
  MIN(jsd_first) AS js_divergence_first,
  MAX(CASE WHEN from_end = 1 THEN js_divergence END) AS js_divergence_last,
  f.plateau_at, f.fig1_at,
  MAX(CASE WHEN r.round = f.plateau_at THEN outcome END) AS plateau_outcome,
  MAX(CASE WHEN r.round = f.fig1_at THEN outcome END) AS fig1_outcome,
  f.rule_at,
  MAX(CASE WHEN r.round = f.rule_at THEN outcome END) AS rule_outcome,
  MAX(rule) AS evince_rule,
  MAX(mi) AS evince_mi,
  MAX(CASE WHEN from_end = 1 THEN wasserstein < wd_first - t END) AS wasserstein_decreased,
  MAX(CASE WHEN from_end = 1 THEN normalised_mi > mi_first + t END) AS mi_increased
FROM rules r JOIN firsts f ON f.session_id = r.session_id GROUP BY r.session_id
"""
