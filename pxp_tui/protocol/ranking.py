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

#: ASCII upper case to lower case, as SQLite's ``lower()`` folds
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def same_label(a: str, b: str) -> bool:
    """Two labels as the SQL views compare them: equal but for ASCII case and surrounding spaces."""
    return a.strip(" ").translate(_ASCII_LOWER) == b.strip(" ").translate(_ASCII_LOWER)


def rank(label: str, distribution: Distribution, same: Callable[[str, str], bool] | None = None) -> int | None:
    """The rank of ``label`` in ``distribution`` (1 = the most probable), or None if it has no mass there.

    ``same`` compares a key with the label (default: :func:`same_label`)."""
    same = same or same_label
    normalise(distribution)  # refused if it is no distribution; ranks compare the values as stated
    mass = sum(float(v) for x, v in distribution.items() if same(x, label))
    if mass <= 0:
        return None
    return sum(1 for v in distribution.values() if v >= mass)


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
