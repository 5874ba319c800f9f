"""EVINCE's information measures over two agents' probability distributions (paper 003, Appendix D).

A distribution is a ``Mapping[str, float]`` from labels (RAD's conditions, DRUG's reactant sets) to
probabilities. Every measure first :func:`normalise`\\ s its arguments, so a stored distribution whose
sum is off by rounding is read as meant; negative, NaN or infinite values, and distributions with no
mass, are refused with :class:`DistributionError`. The label set of a pair is the union of the keys of
both: a label written with probability 0 belongs to it, a label left out does not (it matters for the
smoothing of KL divergence and cross entropy only).

All logarithms are base 2: entropies, divergences and mutual information are in bits.

- :func:`entropy`: Shannon entropy ``H(P) = -sum P(x) log2 P(x)`` (``0 log 0 = 0``).
- :func:`kl_divergence` and :func:`cross_entropy`: raw (``smoothing=0``, the paper's Appendix D
  formulas: ``inf`` where the second distribution has a zero where the first has mass, and
  ``cross_entropy(P, P) = H(P)``), or on the *smoothed* pair, as the paper's Table 1 prescribes for
  zeros: both distributions get ``e`` (a run setting, :data:`SMOOTHING` by default) added to every
  label of the pair's label set and are renormalised, ``P'(x) = (P(x) + e) / (1 + C e)`` for ``C``
  labels. Smoothed, ``KL(P||P) = 0``, every value is finite, and ``cross_entropy(P, Q) = H(P') +
  KL(P'||Q')`` (so ``cross_entropy(P, P) = H(P')``, a little more than ``H(P)``). The default
  argument is the smoothed measure (what the debate's rounds compare); pass ``smoothing=0`` for the raw one.
- :func:`js_divergence`: the Jensen-Shannon *divergence* in bits, in [0, 1]; :func:`js_distance` is its
  square root (scipy's ``jensenshannon(p, q, base=2)``, a metric).
- :func:`wasserstein`: 1-Wasserstein distance over an ordered label set with unit spacing, the area
  between the two cumulative distributions (scipy's ``wasserstein_distance(range(k), range(k), p, q)``).
  For labels with no order, :func:`total_variation` is the 1-Wasserstein distance under the discrete
  (0/1) metric (moving mass to any other label costs 1). Which ground metric a task uses is its choice
  (:func:`ground_distance`); :func:`wasserstein_percent` is the paper's "WD %": the distance as a share
  of the largest the metric allows (1 for 0/1, ``k - 1`` for ``k`` ordered labels).
- :func:`mutual_information`: the paper gives ``I(X;Y) = sum p(x,y) log p(x,y) / (p(x) p(y))`` and its
  normalisation ``I / max(H(X), H(Y))`` but not how the joint of two agents' distributions is formed.
  We take the *maximal-agreement coupling* (:func:`coupling`): the agents name the same label as often
  as their distributions allow, ``p(x,x) = min(P(x), Q(x))``, and the rest of the mass pairs their
  leftovers independently, ``p(x,y) = rP(x) rQ(y) / R`` for ``x != y`` (``rP = P - min(P, Q)``,
  ``R = sum rP``). Its marginals are ``P`` and ``Q``; ``I = H(P)`` when ``P = Q``; ``I = 0`` when the
  supports are disjoint, or when either agent is certain. Its limit: leftovers on one label each are
  paired one to one, so ``{a: .5, b: .5}`` and ``{a: .5, c: .5}`` share everything (NMI 1) though they
  agree on half the mass; read MI beside JSD and WD.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Distribution = Mapping[str, float]

#: probability added to every label before KL divergence and cross entropy (LLMs state probabilities
#: in whole percent, so a stated 0 means "under about 1%")
SMOOTHING = 0.01


class DistributionError(ValueError):
    """Something that is not a probability distribution over labels."""


def normalise(distribution: Distribution, labels: Iterable[str] | None = None) -> dict[str, float]:
    """``distribution`` scaled to sum to 1, over ``labels`` (in their order) if given.

    Labels missing from ``distribution`` get 0; a key that is not among ``labels`` is an error, as is
    a negative, NaN or infinite value, or no mass at all.
    """
    order = list(distribution) if labels is None else list(dict.fromkeys(labels))
    if labels is not None:
        known = set(order)
        unknown = [key for key in distribution if key not in known]
        if unknown:
            raise DistributionError(f"labels not in the label set: {', '.join(map(repr, unknown[:3]))}")
    values = []
    for label in order:
        value = distribution.get(label, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DistributionError(f"the probability of {label!r} is not a number: {value!r}")
        if not math.isfinite(value) or value < 0:
            raise DistributionError(f"the probability of {label!r} is {value!r}: it must be finite and not negative")
        values.append(float(value))
    total = math.fsum(values)
    if total <= 0:
        raise DistributionError("the distribution has no mass (every probability is 0)")
    return {label: value / total for label, value in zip(order, values, strict=True)}


def _pair(p: Distribution, q: Distribution) -> tuple[list[float], list[float]]:
    """The two distributions, normalised, as vectors over the union of their labels."""
    p, q = normalise(p), normalise(q)
    labels = list(dict.fromkeys([*p, *q]))
    return [p.get(x, 0.0) for x in labels], [q.get(x, 0.0) for x in labels]


def _plogp_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """``sum a log2(a / b)`` over the terms with ``a > 0`` (inf if such a term has ``b = 0``)."""
    terms = []
    for x, y in zip(a, b, strict=True):
        if x > 0:
            if y <= 0:
                return math.inf
            terms.append(x * math.log2(x / y))
    return math.fsum(terms)


def entropy(p: Distribution) -> float:
    """Shannon entropy of ``p`` in bits."""
    return max(0.0, -math.fsum(x * math.log2(x) for x in normalise(p).values() if x > 0))


def _smoothed(values: Sequence[float], smoothing: float) -> list[float]:
    if smoothing < 0 or not math.isfinite(smoothing):
        raise DistributionError(f"smoothing must be finite and not negative, got {smoothing!r}")
    scale = 1 + len(values) * smoothing
    return [(x + smoothing) / scale for x in values]


def kl_divergence(p: Distribution, q: Distribution, smoothing: float = SMOOTHING) -> float:
    """``KL(P||Q)`` in bits, on the smoothed pair (see the module notes)."""
    a, b = _pair(p, q)
    return max(0.0, _plogp_ratio(_smoothed(a, smoothing), _smoothed(b, smoothing)))


def cross_entropy(p: Distribution, q: Distribution, smoothing: float = SMOOTHING) -> float:
    """``H(P, Q) = -sum P'(x) log2 Q'(x)`` in bits, on the smoothed pair."""
    a, b = (_smoothed(v, smoothing) for v in _pair(p, q))
    if any(y <= 0 < x for x, y in zip(a, b, strict=True)):
        return math.inf
    return -math.fsum(x * math.log2(y) for x, y in zip(a, b, strict=True) if x > 0)


def js_divergence(p: Distribution, q: Distribution) -> float:
    """Jensen-Shannon divergence in bits: ``KL(P||M)/2 + KL(Q||M)/2`` with ``M = (P + Q)/2``; in [0, 1]."""
    a, b = _pair(p, q)
    m = [(x + y) / 2 for x, y in zip(a, b, strict=True)]
    return min(1.0, max(0.0, (_plogp_ratio(a, m) + _plogp_ratio(b, m)) / 2))


def js_distance(p: Distribution, q: Distribution) -> float:
    """The Jensen-Shannon distance, ``sqrt(js_divergence)`` (scipy's ``jensenshannon`` with ``base=2``)."""
    return math.sqrt(js_divergence(p, q))


def wasserstein(p: Distribution, q: Distribution, order: Sequence[str]) -> float:
    """1-Wasserstein distance with the labels at positions ``0, 1, ..., k-1`` in ``order``.

    Labels of ``order`` missing from a distribution have probability 0; a label not in ``order`` is an
    error. The result lies in ``[0, k - 1]``.
    """
    a, b = normalise(p, order), normalise(q, order)
    gaps, running = [], 0.0
    for label in list(a)[:-1]:
        running += a[label] - b[label]
        gaps.append(abs(running))
    return math.fsum(gaps)


def total_variation(p: Distribution, q: Distribution) -> float:
    """``sum |P - Q| / 2``: the 1-Wasserstein distance when any two distinct labels are 1 apart."""
    a, b = _pair(p, q)
    return min(1.0, math.fsum(abs(x - y) for x, y in zip(a, b, strict=True)) / 2)


def ground_distance(p: Distribution, q: Distribution, order: Sequence[str] | None = None) -> float:
    """The 1-Wasserstein distance under the task's ground metric: ordered labels (``order``) or 0/1 (None)."""
    return total_variation(p, q) if order is None else wasserstein(p, q, order)


def largest_distance(order: Sequence[str] | None = None) -> float:
    """The largest 1-Wasserstein distance of the ground metric: ``len(order) - 1`` for ordered labels, 1 for 0/1."""
    return 1.0 if order is None else float(max(1, len(order) - 1))


def wasserstein_percent(distance: float, order: Sequence[str] | None = None) -> float:
    """The paper's "WD %" (its Figures 4b and 6b): ``100 * WD / largest_distance(order)``."""
    return 100.0 * distance / largest_distance(order)


def coupling(p: Distribution, q: Distribution) -> dict[tuple[str, str], float]:
    """The maximal-agreement joint distribution of labels ``(x, y)`` with marginals ``P`` and ``Q``.

    ``P(X = Y = x) = min(P(x), Q(x))``; the leftovers ``rP(x) = P(x) - min``, ``rQ(y) = Q(y) - min``
    are paired independently, ``rP(x) rQ(y) / R`` with ``R = sum rP`` (they never share a label, so
    this mass is off the diagonal). Only cells with mass are returned.
    """
    return _coupling(normalise(p), normalise(q))


def _coupling(a: dict[str, float], b: dict[str, float]) -> dict[tuple[str, str], float]:
    labels = list(dict.fromkeys([*a, *b]))
    joint: dict[tuple[str, str], float] = {}
    left_p, left_q = {}, {}
    for x in labels:
        px, qx = a.get(x, 0.0), b.get(x, 0.0)
        both = min(px, qx)
        if both > 0:
            joint[(x, x)] = both
        if px > both:
            left_p[x] = px - both
        if qx > both:
            left_q[x] = qx - both
    rest = math.fsum(left_p.values())
    if rest > 0:
        for x, rx in left_p.items():
            for y, ry in left_q.items():
                joint[(x, y)] = rx * ry / rest
    return joint


def mutual_information(p: Distribution, q: Distribution) -> float:
    """``I(X;Y)`` in bits of the maximal-agreement :func:`coupling` of ``P`` and ``Q``."""
    a, b = normalise(p), normalise(q)
    terms = [j * math.log2(j / (a[x] * b[y])) for (x, y), j in _coupling(a, b).items()]
    return max(0.0, math.fsum(terms))


def normalised_mutual_information(p: Distribution, q: Distribution) -> float:
    """``I(X;Y) / max(H(P), H(Q))``, in [0, 1] (the paper's normalisation).

    When both agents are certain (both entropies 0) it is 1 if they name the same label, else 0.
    """
    a, b = normalise(p), normalise(q)
    most = max(entropy(a), entropy(b))
    if most == 0:
        return 1.0 if max(a, key=a.__getitem__) == max(b, key=b.__getitem__) else 0.0
    return min(1.0, mutual_information(a, b) / most)
