"""EVINCE's debate rules over rounds of two agents' distributions (paper 003, section 3.2, Figure 1).

A *round* is one message of each agent: the machine's at ``j = 2r - 1`` and the other agent's
answer at ``j = 2r`` (the paper's ``P_A^(t)`` and ``P_B^(t)``, B answering A). Pure functions:

- :class:`RoundInformation`: the measures of one round (:mod:`pxp_tui.protocol.information`);
- :func:`should_stop`: EVINCE's stop rule: the Wasserstein distance did not decrease and the
  normalised mutual information did not increase since the previous round;
- :class:`SessionInformation` / :func:`summarise`: first and last values of a session, the round at
  which the stop rule first held, and whether WD fell and MI rose over the session;
- :func:`contentiousness`: 0.9 for two rounds, then 25% less each round (0.9, 0.9, 0.675, 0.506, ...);
- :func:`combine`: the final prediction, the two distributions weighted by argument quality.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from pxp_tui.protocol import information as info
from pxp_tui.protocol.information import Distribution, DistributionError

#: how much WD must fall, or MI rise, to count as progress: numerical noise only by default
#: (the book version of EVINCE uses 0.01 for both)
TOLERANCE = 1e-9
#: the paper's contentiousness schedule: 0.9, held for two rounds, then 25% less each round
START, DECAY, HOLD = 0.9, 0.25, 2
#: ``--stop``: PXP's rule, EVINCE's, or whichever comes first
STOP_RULES = ("pxp", "evince", "both")
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
    ``wasserstein`` is over the task's label order, or the total variation when labels have none.
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

    @classmethod
    def measure(
        cls, round: int, machine: Distribution, human: Distribution, order: Sequence[str] | None = None
    ) -> RoundInformation:
        """Every measure of the round; ``order`` is the label order for the Wasserstein distance."""
        if round < 1:
            raise ValueError(f"rounds are numbered from 1, got {round}")
        m, h = info.normalise(machine), info.normalise(human)
        return cls(
            round=round,
            entropy_machine=info.entropy(m),
            entropy_human=info.entropy(h),
            js_divergence=info.js_divergence(m, h),
            wasserstein=info.total_variation(m, h) if order is None else info.wasserstein(m, h, order),
            kl_machine_human=info.kl_divergence(m, h),
            kl_human_machine=info.kl_divergence(h, m),
            cross_entropy_machine_human=info.cross_entropy(m, h),
            cross_entropy_human_machine=info.cross_entropy(h, m),
            mutual_information=info.mutual_information(m, h),
            normalised_mi=info.normalised_mutual_information(m, h),
        )

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def progressed(previous: RoundInformation, current: RoundInformation, tolerance: float = TOLERANCE) -> bool:
    """Whether the Wasserstein distance decreased or the normalised MI increased (by more than ``tolerance``)."""
    return current.wasserstein < previous.wasserstein - tolerance or current.normalised_mi > previous.normalised_mi + tolerance


def should_stop(rounds: Sequence[RoundInformation], tolerance: float = TOLERANCE) -> bool:
    """EVINCE's stop rule after the latest round: WD did not decrease and MI did not increase.

    Needs two rounds to compare; with fewer it never stops.
    """
    return len(rounds) >= 2 and not progressed(rounds[-2], rounds[-1], tolerance)


@dataclass(frozen=True)
class SessionInformation:
    """A session's measures in brief."""

    rounds: int
    first: RoundInformation
    last: RoundInformation
    #: the round after which the stop rule first held (None: it never did)
    converged_at: int | None
    wasserstein_decreased: bool
    mi_increased: bool


def summarise(rounds: Sequence[RoundInformation], tolerance: float = TOLERANCE) -> SessionInformation:
    """First and last values, the round of convergence, and whether WD fell and MI rose (last vs first)."""
    if not rounds:
        raise ValueError("a session summary needs at least one round")
    converged = next((r.round for i, r in enumerate(rounds) if should_stop(rounds[: i + 1], tolerance)), None)
    first, last = rounds[0], rounds[-1]
    return SessionInformation(
        rounds=len(rounds),
        first=first,
        last=last,
        converged_at=converged,
        wasserstein_decreased=last.wasserstein < first.wasserstein - tolerance,
        mi_increased=last.normalised_mi > first.normalised_mi + tolerance,
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
    """``(w_m P_m + w_h P_h) / (w_m + w_h)`` over the union of labels: the paper's conciliatory output,
    with the weights its argument-quality scores (CRIT). Equal weights give the plain average."""
    weights = (machine_weight, human_weight)
    if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        raise DistributionError(f"the weights must be finite, not negative and not both 0: {weights!r}")
    m, h = info.normalise(machine), info.normalise(human)
    labels = list(dict.fromkeys([*m, *h]))
    total = machine_weight + human_weight
    return {x: (machine_weight * m.get(x, 0.0) + human_weight * h.get(x, 0.0)) / total for x in labels}


def rounds_of(distributions: Mapping[int, Distribution], order: Sequence[str] | None = None) -> list[RoundInformation]:
    """The rounds of a session from its messages' distributions by ``j``: round ``r`` pairs ``j = 2r - 1``
    and ``2r``; a round missing either message's distribution is left out."""
    return [
        RoundInformation.measure(j // 2, distributions[j - 1], distributions[j], order)
        for j in sorted(distributions)
        if j % 2 == 0 and j - 1 in distributions
    ]
