"""CRIT's arithmetic (paper 003, Appendix A, Table 4): from scored reasons to one score per agent.

Table 4 scores each reason ``r`` for the claim (an agent's prediction) by its validity ``gamma_r`` and its
source's credibility ``theta_r``, scores the rival reasons ``r'`` (the other agent's counter-arguments)
the same way, and computes "a weighted sum Gamma" of them (step 6) without giving the weights. Ours, on
CRIT's 1-10 scales:

- each reason's strength ``w = gamma * theta / 10`` (validity weighted by credibility, in [0.1, 10]);
- ``Gamma = mean(w over R) * S / (S + S')``, with ``S`` and ``S'`` the summed strengths of the reasons and
  of the rival reasons: the reasons' mean strength, discounted by the rivals' share of all the
  strength. No rival: the mean strength; rivals as strong as the reasons: half of it; no reason: 0.

The round's CRIT, which Figure 1's loop compares round to round, is the mean of both agents' scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: CRIT's scale for validity and credibility
LOW, HIGH = 1.0, 10.0

#: a scored reason: (validity, credibility)
Scored = tuple[float, float]


def strength(validity: float, credibility: float) -> float:
    """``validity * credibility / 10``; each must lie on CRIT's 1-10 scale (ValueError otherwise)."""
    for name, value in (("validity", validity), ("credibility", credibility)):
        if not (math.isfinite(value) and LOW <= value <= HIGH):
            raise ValueError(f"a reason's {name} lies in {LOW:g}-{HIGH:g}, got {value!r}")
    return validity * credibility / HIGH


def score(reasons: Sequence[Scored], rivals: Sequence[Scored] = ()) -> float:
    """An agent's CRIT score Gamma in [0, 10] from its scored reasons and the rival reasons."""
    ours = [strength(*r) for r in reasons]
    theirs = [strength(*r) for r in rivals]
    if not ours:
        return 0.0
    total = math.fsum(ours)
    return (total / len(ours)) * total / (total + math.fsum(theirs))


def round_score(machine: float | None, human: float | None) -> float | None:
    """The round's CRIT: the mean of the two agents' scores (None if either is missing)."""
    if machine is None or human is None:
        return None
    return (machine + human) / 2
