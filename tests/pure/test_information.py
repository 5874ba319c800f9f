"""EVINCE's measures equal scipy's on random distributions (zeros and one-hot included), and hand-checked values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cityblock, jensenshannon
from scipy.stats import entropy as scipy_entropy
from scipy.stats import wasserstein_distance

from pxp_tui.protocol import information as info
from pxp_tui.protocol.information import DistributionError

CLOSE = {"rel": 1e-9, "abs": 1e-9}

#: a weight: often exactly 0, otherwise anything from tiny to large (normalise scales it)
weight = st.one_of(st.just(0.0), st.floats(min_value=1e-9, max_value=1e3))


@st.composite
def vectors(draw: st.DrawFn, k: int) -> list[float]:
    """A non-negative vector with some mass: random, or one-hot."""
    if draw(st.booleans()) and draw(st.booleans()):
        hot = draw(st.integers(0, k - 1))
        return [1.0 if i == hot else 0.0 for i in range(k)]
    values = draw(st.lists(weight, min_size=k, max_size=k).filter(lambda v: sum(v) > 0))
    return values


@st.composite
def pairs(draw: st.DrawFn) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Labels, and two normalised vectors over them."""
    k = draw(st.integers(1, 8))
    p, q = np.array(draw(vectors(k))), np.array(draw(vectors(k)))
    return [f"label{i}" for i in range(k)], p / p.sum(), q / q.sum()


def as_dist(labels: list[str], values: np.ndarray) -> dict[str, float]:
    return {label: float(v) for label, v in zip(labels, values, strict=True)}


def smoothed(values: np.ndarray, e: float = info.SMOOTHING) -> np.ndarray:
    return (values + e) / (1 + len(values) * e)


def maximal_coupling(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The maximal-agreement joint, built here independently of the module."""
    both = np.minimum(p, q)
    left_p, left_q = p - both, q - both
    joint = np.diag(both)
    if left_p.sum() > 0:
        joint = joint + np.outer(left_p, left_q) / left_p.sum()
    return joint


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_entropy_kl_and_cross_entropy_equal_scipys(pair) -> None:
    labels, p, q = pair
    a, b = as_dist(labels, p), as_dist(labels, q)
    assert info.entropy(a) == pytest.approx(scipy_entropy(p, base=2), **CLOSE)
    ps, qs = smoothed(p), smoothed(q)
    assert info.kl_divergence(a, b) == pytest.approx(scipy_entropy(ps, qs, base=2), **CLOSE)
    assert info.kl_divergence(b, a) == pytest.approx(scipy_entropy(qs, ps, base=2), **CLOSE)
    assert info.kl_divergence(a, b, smoothing=0) == pytest.approx(scipy_entropy(p, q, base=2), **CLOSE)
    expected_ce = scipy_entropy(ps, base=2) + scipy_entropy(ps, qs, base=2)
    assert info.cross_entropy(a, b) == pytest.approx(expected_ce, **CLOSE)
    assert info.cross_entropy(a, b) == pytest.approx(-float(np.sum(ps * np.log2(qs))), **CLOSE)


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_jensen_shannon_wasserstein_and_total_variation_equal_scipys(pair) -> None:
    labels, p, q = pair
    a, b = as_dist(labels, p), as_dist(labels, q)
    with np.errstate(invalid="ignore"):  # scipy takes the root of a rounding error below 0 when p == q
        distance = float(np.nan_to_num(jensenshannon(p, q, base=2)))
    assert info.js_distance(a, b) == pytest.approx(distance, abs=1e-7)  # sqrt amplifies rounding near 0
    assert info.js_divergence(a, b) == pytest.approx(distance**2, **CLOSE)
    k = len(labels)
    assert info.wasserstein(a, b, labels) == pytest.approx(wasserstein_distance(range(k), range(k), p, q), **CLOSE)
    assert info.total_variation(a, b) == pytest.approx(cityblock(p, q) / 2, **CLOSE)


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_mutual_information_is_that_of_the_maximal_agreement_coupling(pair) -> None:
    labels, p, q = pair
    a, b = as_dist(labels, p), as_dist(labels, q)
    joint = maximal_coupling(p, q)
    # I(X;Y) = H(X) + H(Y) - H(X,Y), each by scipy; the joint's marginals are p and q
    expected = scipy_entropy(p, base=2) + scipy_entropy(q, base=2) - scipy_entropy(joint.ravel(), base=2)
    assert info.mutual_information(a, b) == pytest.approx(max(0.0, expected), **CLOSE)
    cells = info.coupling(a, b)
    for i, x in enumerate(labels):
        assert math.fsum(v for (r, _), v in cells.items() if r == x) == pytest.approx(p[i], **CLOSE)
        assert math.fsum(v for (_, c), v in cells.items() if c == x) == pytest.approx(q[i], **CLOSE)
        assert cells.get((x, x), 0.0) == pytest.approx(min(p[i], q[i]), **CLOSE)
    most = max(scipy_entropy(p, base=2), scipy_entropy(q, base=2))
    if most > 1e-6:
        assert info.normalised_mutual_information(a, b) == pytest.approx(min(1.0, max(0.0, expected) / most), abs=1e-7)


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_the_measures_keep_their_bounds_and_symmetries(pair) -> None:
    labels, p, q = pair
    a, b = as_dist(labels, p), as_dist(labels, q)
    assert 0 <= info.js_divergence(a, b) <= 1 and info.js_divergence(a, b) == info.js_divergence(b, a)
    assert 0 <= info.total_variation(a, b) <= info.wasserstein(a, b, labels) + 1e-12 <= len(labels) - 1 + 1e-9
    assert info.wasserstein(a, b, labels) == pytest.approx(info.wasserstein(b, a, labels), abs=1e-12)
    mi = info.mutual_information(a, b)
    assert mi == pytest.approx(info.mutual_information(b, a), abs=1e-9)
    assert -1e-12 <= mi <= min(info.entropy(a), info.entropy(b)) + 1e-9
    assert 0 <= info.normalised_mutual_information(a, b) <= 1
    assert info.kl_divergence(a, b) >= 0 and info.cross_entropy(a, b) >= info.kl_divergence(a, b)
    # the same distribution twice: nothing between them, everything shared
    assert info.js_divergence(a, a) == pytest.approx(0, abs=1e-12) and info.kl_divergence(a, a) == pytest.approx(0, abs=1e-12)
    assert info.wasserstein(a, a, labels) == 0 and info.mutual_information(a, a) == pytest.approx(info.entropy(a), **CLOSE)
    assert info.normalised_mutual_information(a, a) == pytest.approx(1.0)


def test_hand_checked_values() -> None:
    assert info.entropy({"a": 0.5, "b": 0.25, "c": 0.25}) == pytest.approx(1.5)
    assert info.entropy({"a": 1, "b": 0}) == 0
    assert info.js_divergence({"a": 1}, {"b": 1}) == pytest.approx(1.0)
    # M = (0.75, 0.25): KL(P||M) = 0.5 log2(2/3) + 0.5 = 0.20752, KL(Q||M) = log2(4/3) = 0.41504
    assert info.js_divergence({"a": 0.5, "b": 0.5}, {"a": 1, "b": 0}) == pytest.approx(0.311278, abs=1e-6)
    order = ["a", "b", "c"]
    assert info.wasserstein({"a": 1}, {"c": 1}, order) == 2  # all the mass moves two places
    assert info.wasserstein({"a": 0.5, "b": 0.5}, {"b": 0.5, "c": 0.5}, order) == pytest.approx(1.0)
    assert info.total_variation({"a": 1}, {"c": 1}) == 1
    # smoothed one-hots on two labels: P' = (1.01, 0.01)/1.02, Q' reversed, KL = log2(101)/1.02
    assert info.kl_divergence({"a": 1, "b": 0}, {"a": 0, "b": 1}) == pytest.approx(math.log2(101) / 1.02)
    assert info.kl_divergence({"a": 1, "b": 0}, {"a": 0, "b": 1}, smoothing=0) == math.inf
    assert info.cross_entropy({"a": 1, "b": 0}, {"a": 0, "b": 1}) == pytest.approx(
        info.entropy({"a": 1.01, "b": 0.01}) + math.log2(101) / 1.02
    )


def test_mutual_information_worked_example() -> None:
    machine = {"Atelectasis": 0.6, "Pneumonia": 0.3, "Pleural Effusion": 0.1}
    human = {"Pneumonia": 0.6, "Atelectasis": 0.3, "Cardiomegaly": 0.1}
    # agreement: Atelectasis 0.3, Pneumonia 0.3; leftovers Atelectasis 0.3, Pleural Effusion 0.1 (R = 0.4)
    # against Pneumonia 0.3, Cardiomegaly 0.1, paired independently
    joint = info.coupling(machine, human)
    assert joint == pytest.approx(
        {
            ("Atelectasis", "Atelectasis"): 0.3,
            ("Pneumonia", "Pneumonia"): 0.3,
            ("Atelectasis", "Pneumonia"): 0.225,
            ("Atelectasis", "Cardiomegaly"): 0.075,
            ("Pleural Effusion", "Pneumonia"): 0.075,
            ("Pleural Effusion", "Cardiomegaly"): 0.025,
        }
    )
    # 0.6 log2(5/3) + 0.225 log2(0.625) + 0.15 log2(1.25) + 0.025 log2(2.5)
    assert info.mutual_information(machine, human) == pytest.approx(0.370951, abs=1e-6)
    # H = 0.6 log2(1/0.6) + 0.3 log2(1/0.3) + 0.1 log2(10) = 1.295462 for both
    assert info.normalised_mutual_information(machine, human) == pytest.approx(0.370951 / 1.295462, abs=1e-6)


def test_mutual_information_limits() -> None:
    # a certain agent shares no uncertainty, whatever the other says
    assert info.mutual_information({"a": 0.5, "b": 0.5}, {"a": 1}) == pytest.approx(0)
    # disjoint supports: the leftovers pair independently
    assert info.mutual_information({"a": 0.5, "b": 0.5}, {"c": 0.5, "d": 0.5}) == pytest.approx(0)
    # both certain: 1 when they name the same label, else 0
    assert info.normalised_mutual_information({"a": 1, "b": 0}, {"a": 1}) == 1
    assert info.normalised_mutual_information({"a": 1}, {"b": 1}) == 0
    # the coupling's known limit: half agreement with a one-to-one remainder is full dependence
    assert info.normalised_mutual_information({"a": 0.5, "b": 0.5}, {"a": 0.5, "c": 0.5}) == pytest.approx(1)


def test_normalise_fills_missing_labels_and_refuses_what_is_not_a_distribution() -> None:
    assert info.normalise({"b": 2, "a": 2}, ["a", "b", "c"]) == {"a": 0.5, "b": 0.5, "c": 0.0}
    assert list(info.normalise({"b": 1, "a": 3})) == ["b", "a"]
    for bad in ({"a": -0.1, "b": 1}, {"a": float("nan")}, {"a": float("inf")}, {"a": 0, "b": 0}, {}, {"a": True}, {"a": "0.5"}):
        with pytest.raises(DistributionError):
            info.normalise(bad)  # type: ignore[arg-type]
    with pytest.raises(DistributionError, match="not in the label set"):
        info.normalise({"Fracture": 1}, ["Atelectasis"])
    with pytest.raises(DistributionError):
        info.wasserstein({"a": 1}, {"z": 1}, ["a", "b"])
    with pytest.raises(DistributionError):
        info.kl_divergence({"a": 1}, {"a": 1}, smoothing=-1)
