"""EVINCE's debate rules over rounds of two agents' distributions (paper 003, section 3.2, Figure 1, Appendix F).

A *round* is one message of each agent: the machine's at ``j = 2r - 1`` and the other agent's
answer at ``j = 2r`` (the paper's ``P_A^(t)`` and ``P_B^(t)``, B answering A). Pure functions:

- :class:`RoundInformation`: the measures of one round (:mod:`pxp_tui.protocol.information`), KL
  divergence and cross entropy both raw and smoothed;
- the two stop rules, :data:`EVINCE_RULES`: ``fig1``, the paper's Figure 1 loop, which goes on WHILE
  ``WD <= WD_old and MI >= MI_old and CRIT >= CRIT_old`` (:func:`fig1_stops`: it stops when any of the
  three got worse), and ``plateau``, its prose ("when all metrics reach a plateau"), which stops when
  WD did not fall and MI did not rise (:func:`plateau_stops`). Both compare the latest round with the
  one before, with a tolerance: a change smaller than it counts as none; the MI they compare is the
  normalised MI or the literal one (:data:`MI_MEASURES`);
- :func:`outcome`: what a stop by either rule says of the debate: ``converged`` (WD fell, or the two
  distributions are within the tolerance of each other), ``diverged`` (WD rose) or ``stalled`` (WD did
  not move and the agents are still apart);
- :class:`SessionInformation` / :func:`summarise`: first and last values of a session, the rounds at
  which each rule first held and its outcome there, and whether WD fell and MI rose over the session;
- :func:`contentiousness`: 0.9 for two rounds, then 25% less each round (0.9, 0.9, 0.675, 0.506, ...);
- the final distribution: :func:`combine`, the two distributions weighted by argument quality (Figure
  1's step 3), and :func:`entopps`, Appendix F's EnToPPS for agents whose top-k label sets differ;
  :func:`aggregate` applies the run's choice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from pxp_tui.protocol import information as info
from pxp_tui.protocol.information import Distribution, DistributionError

#: a change of WD, NMI or CRIT / 10 smaller than this counts as none, in both stop rules: agents state
#: probabilities in whole percent, so a move of less than 0.01 is rounding (the book version of EVINCE
#: uses 0.01 too); ``--stop-tolerance`` sets it per run
TOLERANCE = 0.01
#: the tolerance of runs stored before it was a setting (numerical noise only)
OLD_TOLERANCE = 1e-9
#: the paper's contentiousness schedule: 0.9, held for two rounds, then 25% less each round
START, DECAY, HOLD = 0.9, 0.25, 2
#: ``--stop``: PXP's rule, EVINCE's, or whichever comes first
STOP_RULES = ("pxp", "evince", "both")
#: ``--evince-rule``: which of EVINCE's stop rules ``--stop evince|both`` applies
FIG1, PLATEAU = "fig1", "plateau"
EVINCE_RULES = (FIG1, PLATEAU)
#: ``--evince-mi``: which mutual information the stop rules compare round to round: the normalised MI
#: (``MI / max(H(P), H(Q))``, what the paper's figures and results call "MI") or the literal MI in bits
NMI, MI = "nmi", "mi"
MI_MEASURES = (NMI, MI)
#: what a stop by EVINCE's rule says of the debate (the session's stop reason): WD fell or the agents agree
#: within the tolerance; WD rose; WD did not move with the agents still apart
CONVERGED, DIVERGED, STALLED = "converged", "diverged", "stalled"
OUTCOMES = (CONVERGED, DIVERGED, STALLED)
#: ``--aggregation``: how the final distribution combines the agents' last ones: EnToPPS (Appendix F) when
#: their top-k label sets differ and Figure 1's weighted average when they are the same; or always the latter
ENTOPPS, WEIGHTED = "entopps", "weighted"
AGGREGATIONS = (ENTOPPS, WEIGHTED)
#: ``--final-weights``: how the final distribution weighs the agents: by a CRIT judge's scores of their
#: arguments (the paper's step 3), or equally
FINAL_WEIGHTS = ("crit", "equal")
#: ``data.final_weights``'s method: equal weights asked for; equal weights while the session waits for its judge
EQUAL, NOT_JUDGED = "equal", "equal (not judged)"


@dataclass(frozen=True)
class RoundInformation:
    """The measures of round ``round`` (1-based) between the machine's and the other agent's distributions.

    "Machine" is the agent at odd ``j`` (it opens), "human" the one at even ``j`` (the other model in
    a machine-machine session), as in the blackboard's ``sender`` column. Bits throughout;
    ``wasserstein`` is under the task's ground metric (ordered labels, or 0/1: the total variation).
    ``kl_*`` and ``cross_entropy_*`` are on the smoothed pair; their ``*_raw`` twins are the paper's
    formulas as they stand, ``inf`` where undefined (the second distribution has a zero where the first
    has mass).
    """

    round: int
    entropy_machine: float
    entropy_human: float
    js_divergence: float
    wasserstein: float
    kl_machine_human: float
    kl_human_machine: float
    cross_entropy_machine_human: float
    cross_entropy_human_machine: float
    mutual_information: float
    normalised_mi: float
    kl_machine_human_raw: float
    kl_human_machine_raw: float
    cross_entropy_machine_human_raw: float
    cross_entropy_human_machine_raw: float

    @classmethod
    def measure(
        cls,
        round: int,
        machine: Distribution,
        human: Distribution,
        order: Sequence[str] | None = None,
        smoothing: float = info.SMOOTHING,
    ) -> RoundInformation:
        """Every measure of the round; ``order`` is the label order of an ordered ground metric (None: 0/1)."""
        if round < 1:
            raise ValueError(f"rounds are numbered from 1, got {round}")
        m, h = info.normalise(machine), info.normalise(human)
        return cls(
            round=round,
            entropy_machine=info.entropy(m),
            entropy_human=info.entropy(h),
            js_divergence=info.js_divergence(m, h),
            wasserstein=info.ground_distance(m, h, order),
            kl_machine_human=info.kl_divergence(m, h, smoothing),
            kl_human_machine=info.kl_divergence(h, m, smoothing),
            cross_entropy_machine_human=info.cross_entropy(m, h, smoothing),
            cross_entropy_human_machine=info.cross_entropy(h, m, smoothing),
            mutual_information=info.mutual_information(m, h),
            normalised_mi=info.normalised_mutual_information(m, h),
            kl_machine_human_raw=info.kl_divergence(m, h, 0.0),
            kl_human_machine_raw=info.kl_divergence(h, m, 0.0),
            cross_entropy_machine_human_raw=info.cross_entropy(m, h, 0.0),
            cross_entropy_human_machine_raw=info.cross_entropy(h, m, 0.0),
        )

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def compared_mi(r: RoundInformation, mi: str = NMI) -> float:
    """The mutual information the stop rules compare: ``r``'s normalised MI, or its literal MI (``mi``)."""
    if mi not in MI_MEASURES:
        raise ValueError(f"the stop rules compare one of {', '.join(MI_MEASURES)}, got {mi!r}")
    return r.normalised_mi if mi == NMI else r.mutual_information


def plateau_stops(previous: RoundInformation, current: RoundInformation, tolerance: float = TOLERANCE, mi: str = NMI) -> bool:
    """The plateau rule: WD did not fall and MI (``mi``: normalised or literal) did not rise, each by more than
    ``tolerance``."""
    fell = current.wasserstein < previous.wasserstein - tolerance
    rose = compared_mi(current, mi) > compared_mi(previous, mi) + tolerance
    return not fell and not rose


def fig1_stops(
    previous: RoundInformation,
    current: RoundInformation,
    tolerance: float = TOLERANCE,
    crit_before: float | None = None,
    crit_now: float | None = None,
    mi: str = NMI,
) -> bool:
    """Figure 1's loop ends: WD rose, MI (``mi``: normalised or literal) fell, or CRIT fell, each by more than
    ``tolerance`` (CRIT on its 1-10 scale divided by 10). A round without both CRIT scores compares WD and MI only."""
    if current.wasserstein > previous.wasserstein + tolerance:
        return True
    if compared_mi(current, mi) < compared_mi(previous, mi) - tolerance:
        return True
    return crit_before is not None and crit_now is not None and crit_now / 10 < crit_before / 10 - tolerance


def outcome(previous: RoundInformation, current: RoundInformation, tolerance: float = TOLERANCE) -> str:
    """What a stop after ``current`` says of the debate: :data:`DIVERGED` when WD rose by more than
    ``tolerance``; :data:`CONVERGED` when it fell by more, or the two distributions are within ``tolerance`` of
    each other (WD at most it); :data:`STALLED` otherwise (WD did not move, the agents still apart)."""
    if current.wasserstein > previous.wasserstein + tolerance:
        return DIVERGED
    if current.wasserstein < previous.wasserstein - tolerance or current.wasserstein <= tolerance:
        return CONVERGED
    return STALLED


def should_stop(
    rounds: Sequence[RoundInformation],
    tolerance: float = TOLERANCE,
    rule: str = FIG1,
    crit: Sequence[float | None] = (),
    mi: str = NMI,
) -> bool:
    """Whether EVINCE's ``rule`` stops the debate after the latest round; ``crit`` holds each round's CRIT
    score (None: not judged), in the order of ``rounds``; ``mi`` which MI is compared. Needs two rounds to
    compare: with fewer it never stops. ``rounds`` are the measured ones: a round without both distributions
    is not among them, so the latest is compared with the last measured before it."""
    if len(rounds) < 2:
        return False
    if rule == PLATEAU:
        return plateau_stops(rounds[-2], rounds[-1], tolerance, mi)
    if rule != FIG1:
        raise ValueError(f"EVINCE's stop rule is one of {', '.join(EVINCE_RULES)}, got {rule!r}")
    scores = list(crit) + [None] * (len(rounds) - len(crit))
    return fig1_stops(rounds[-2], rounds[-1], tolerance, scores[len(rounds) - 2], scores[len(rounds) - 1], mi)


def stop_outcome(
    rounds: Sequence[RoundInformation],
    tolerance: float = TOLERANCE,
    rule: str = FIG1,
    crit: Sequence[float | None] = (),
    mi: str = NMI,
) -> str | None:
    """:func:`outcome` of the latest round when ``rule`` stops the debate there (:func:`should_stop`), else None."""
    if not should_stop(rounds, tolerance, rule, crit, mi):
        return None
    return outcome(rounds[-2], rounds[-1], tolerance)


@dataclass(frozen=True)
class SessionInformation:
    """A session's measures in brief."""

    rounds: int
    first: RoundInformation
    last: RoundInformation
    #: the round after which the plateau rule first held (None: it never did)
    plateau_at: int | None
    #: the round after which Figure 1's loop would first have ended (None: it never would)
    fig1_at: int | None
    wasserstein_decreased: bool
    mi_increased: bool
    #: :func:`outcome` at ``plateau_at`` and at ``fig1_at`` (None where the rule never held)
    plateau_outcome: str | None = None
    fig1_outcome: str | None = None

    def stopped_at(self, rule: str) -> int | None:
        """The round at which ``rule`` first held."""
        return self.fig1_at if rule == FIG1 else self.plateau_at

    def outcome_of(self, rule: str) -> str | None:
        """What ``rule`` found where it first held (:func:`outcome`), or None."""
        return self.fig1_outcome if rule == FIG1 else self.plateau_outcome


def summarise(
    rounds: Sequence[RoundInformation], tolerance: float = TOLERANCE, crit: Sequence[float | None] = (), mi: str = NMI
) -> SessionInformation:
    """First and last values, the round at which each stop rule first held (comparing ``mi``) and its outcome
    there, and whether WD fell and the normalised MI rose (last vs first)."""
    if not rounds:
        raise ValueError("a session summary needs at least one round")

    def first_round(rule: str) -> tuple[int | None, str | None]:
        for i, r in enumerate(rounds):
            found = stop_outcome(rounds[: i + 1], tolerance, rule, crit, mi)
            if found is not None:
                return r.round, found
        return None, None

    first, last = rounds[0], rounds[-1]
    plateau_at, plateau_outcome = first_round(PLATEAU)
    fig1_at, fig1_outcome = first_round(FIG1)
    return SessionInformation(
        rounds=len(rounds),
        first=first,
        last=last,
        plateau_at=plateau_at,
        fig1_at=fig1_at,
        wasserstein_decreased=last.wasserstein < first.wasserstein - tolerance,
        mi_increased=last.normalised_mi > first.normalised_mi + tolerance,
        plateau_outcome=plateau_outcome,
        fig1_outcome=fig1_outcome,
    )


def contentiousness(round: int, start: float = START, decay: float = DECAY, hold: int = HOLD) -> float:
    """The contentiousness of round ``round`` (1-based): ``start`` for ``hold`` rounds, then ``decay`` less each round."""
    if round < 1:
        raise ValueError(f"rounds are numbered from 1, got {round}")
    if not 0 <= start <= 1 or not 0 <= decay <= 1 or hold < 0:
        raise ValueError("contentiousness and its decay lie in [0, 1], and the rounds held are not negative")
    return start * (1 - decay) ** max(0, round - hold)


def combine(
    machine: Distribution, human: Distribution, machine_weight: float = 1.0, human_weight: float = 1.0
) -> dict[str, float]:
    """``(w_m P_m + w_h P_h) / (w_m + w_h)`` over the union of labels: the paper's conciliatory output
    (Figure 1, step 3), with the weights its argument-quality scores (CRIT). A label one agent lacks counts
    0 for it. Equal weights give the plain average."""
    weights = (machine_weight, human_weight)
    if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        raise DistributionError(f"the weights must be finite, not negative and not both 0: {weights!r}")
    m, h = info.normalise(machine), info.normalise(human)
    labels = list(dict.fromkeys([*m, *h]))
    total = machine_weight + human_weight
    return {x: (machine_weight * m.get(x, 0.0) + human_weight * h.get(x, 0.0)) / total for x in labels}


def top_labels(distribution: Distribution, k: int | None = None) -> list[str]:
    """The labels with mass, most probable first (a tie keeps the distribution's order), at most ``k``."""
    p = info.normalise(distribution)
    ranked = sorted((x for x in p if p[x] > 0), key=lambda x: -p[x])
    return ranked if k is None else ranked[:k]


def entopps(a: Distribution, b: Distribution, k: int | None = None) -> dict[str, float]:
    """EnToPPS (Appendix F): the union of both agents' top-``k`` labels (None: every label with mass); each
    label's probability from the agent whose top-k holds it, the average of both where both do;
    normalised. Labels outside both top-k sets are left out."""
    p, q = info.normalise(a), info.normalise(b)
    top_p, top_q = top_labels(p, k), top_labels(q, k)
    union = list(dict.fromkeys([*top_p, *top_q]))
    filled = {}
    for x in union:
        if x in top_p and x in top_q:
            filled[x] = (p[x] + q[x]) / 2
        else:
            filled[x] = p[x] if x in top_p else q[x]
    return info.normalise(filled)


def same_top(a: Distribution, b: Distribution, k: int | None = None) -> bool:
    """Whether the two agents' top-``k`` label sets are the same."""
    return set(top_labels(a, k)) == set(top_labels(b, k))


def aggregate(
    machine: Distribution,
    human: Distribution,
    machine_weight: float = 1.0,
    human_weight: float = 1.0,
    k: int | None = None,
    method: str = ENTOPPS,
) -> tuple[dict[str, float], str]:
    """The final distribution and how it was made (``entopps`` or ``weighted``): with ``method`` ENTOPPS,
    :func:`entopps` when the agents' top-``k`` sets differ and :func:`combine` (weighted) when they are the
    same; with WEIGHTED, always :func:`combine`."""
    if method not in AGGREGATIONS:
        raise ValueError(f"the aggregation is one of {', '.join(AGGREGATIONS)}, got {method!r}")
    if method == ENTOPPS and not same_top(machine, human, k):
        return entopps(machine, human, k), ENTOPPS
    return combine(machine, human, machine_weight, human_weight), WEIGHTED


def rounds_of(
    distributions: Mapping[int, Distribution], order: Sequence[str] | None = None, smoothing: float = info.SMOOTHING
) -> list[RoundInformation]:
    """The rounds of a session from its messages' distributions by ``j``: round ``r`` pairs ``j = 2r - 1``
    and ``2r``; a round missing either message's distribution is left out."""
    return [
        RoundInformation.measure(j // 2, distributions[j - 1], distributions[j], order, smoothing)
        for j in sorted(distributions)
        if j % 2 == 0 and j - 1 in distributions
    ]
