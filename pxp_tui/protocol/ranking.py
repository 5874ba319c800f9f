"""Evaluating a debate's distributions against an instance's label (paper 003, section 4: top-k MRR).

The paper scores a top-k prediction by the reciprocal rank of the true label (1 for the top, 1/2 for the
second, ..., 0 when it is not among the top k). A rank here is *pessimistic*: the label ranks after every
label at least as probable as it, so a tie does not count in its favour (a flat distribution over five
labels ranks each of them 5th, not 1st). A label with no mass has no rank. The blackboard's views
(``debate_ranks``) compute the same in SQL; the tests hold the two together.
"""

from __future__ import annotations

from collections.abc import Callable

from pxp_tui.protocol.information import Distribution, normalise


def rank(label: str, distribution: Distribution, same: Callable[[str, str], bool] | None = None) -> int | None:
    """The rank of ``label`` in ``distribution`` (1 = the most probable), or None if it has no mass there.

    ``same`` compares a key with the label (default: equal after case and surrounding spaces)."""
    same = same or (lambda a, b: a.strip().casefold() == b.strip().casefold())
    p = normalise(distribution)
    mass = sum(v for x, v in p.items() if same(x, label))
    if mass <= 0:
        return None
    return sum(1 for v in p.values() if v >= mass)


def reciprocal_rank(found: int | None, k: int | None = None) -> float:
    """``1 / rank`` if the label is ranked within the top ``k`` (None: any rank), else 0."""
    if found is None or (k is not None and found > k):
        return 0.0
    return 1.0 / found


def top_one(distribution: Distribution) -> str:
    """The most probable label (a tie: the first of them in text order, as the SQL views take it)."""
    p = normalise(distribution)
    best = max(p.values())
    return min(x for x, v in p.items() if v == best)
