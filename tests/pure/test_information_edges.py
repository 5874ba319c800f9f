"""EVINCE's measures at their edges (paper 003, Appendix D): the ground metric's largest distance and "WD %", labels of
no mass, the bounds of the divergences, top-k label sets and the final distribution built from them, a round measured
with the run's label order and smoothing, and the label comparison of the debate's evaluation."""

from __future__ import annotations

import pytest

from pxp_tui.protocol import information as info
from pxp_tui.protocol.evince import RoundInformation, aggregate, entopps, rounds_of, same_top, top_labels
from pxp_tui.protocol.ranking import rank, same_label

ORDER = ["none", "mild", "moderate", "severe"]


def test_the_largest_distance_and_wd_percent_follow_the_ground_metric() -> None:
    assert info.largest_distance(None) == 1.0
    assert info.largest_distance(["only"]) == 1.0  # one label: nothing to move, the scale stays 1
    assert info.largest_distance(["a", "b"]) == 1.0
    assert info.largest_distance(ORDER) == 3.0
    assert info.wasserstein_percent(1.5, ORDER) == 50.0
    assert info.wasserstein_percent(0.25) == 25.0


def test_the_ground_distance_is_the_wasserstein_distance_along_the_order_when_there_is_one() -> None:
    p, q = {"none": 1.0}, {"severe": 1.0}
    assert info.ground_distance(p, q) == 1.0  # 0/1: all the mass moves once
    assert info.ground_distance(p, q, ORDER) == 3.0  # three steps along the order
    assert info.wasserstein({"none": 0.5, "mild": 0.5}, {"mild": 0.5, "moderate": 0.5}, ORDER) == 1.0


def test_disjoint_distributions_are_at_most_one_apart_whatever_the_rounding() -> None:
    values = [0.45, 0.3, 0.15, 1 / 3, 0.05]  # normalised, these sum to a hair over 1 in floating point
    p = {f"p{i}": v for i, v in enumerate(values)}
    q = {f"q{i}": v for i, v in enumerate(values)}
    assert info.js_divergence(p, q) == 1.0
    assert info.total_variation(p, q) == 1.0


def test_a_label_of_no_mass_in_both_adds_nothing_to_the_raw_cross_entropy() -> None:
    assert info.cross_entropy({"a": 1.0, "b": 0.0}, {"a": 1.0}, smoothing=0.0) == 0.0
    assert info.cross_entropy({"a": 0.5, "b": 0.5}, {"a": 1.0}, smoothing=0.0) == float("inf")


def test_top_labels_are_the_labels_with_mass_most_probable_first() -> None:
    p = {"b": 0.2, "a": 0.0, "c": 0.5, "d": 0.3}
    assert top_labels(p) == ["c", "d", "b"]
    assert top_labels(p, 2) == ["c", "d"]
    assert top_labels({"x": 0.5, "w": 0.5}) == ["x", "w"]  # a tie keeps the stated order


MACHINE = {"a": 0.5, "b": 0.3, "c": 0.2}
SAME_TOP_2 = {"a": 0.5, "b": 0.4, "d": 0.1}  # top two {a, b} as the machine's; all labels differ
OTHER_TOP_2 = {"a": 0.5, "c": 0.3, "d": 0.2}  # top two {a, c}


def test_the_top_k_sets_are_compared_at_k() -> None:
    assert same_top(MACHINE, SAME_TOP_2, 2) and same_top(SAME_TOP_2, MACHINE, 2)
    assert not same_top(MACHINE, SAME_TOP_2) and not same_top(MACHINE, OTHER_TOP_2, 2)


def test_entopps_keeps_each_agents_top_k_labels() -> None:
    assert entopps(MACHINE, OTHER_TOP_2, 2) == pytest.approx({"a": 0.5 / 1.1, "b": 0.3 / 1.1, "c": 0.3 / 1.1})
    assert entopps(MACHINE, OTHER_TOP_2) == pytest.approx({"a": 0.5 / 1.25, "b": 0.3 / 1.25, "c": 0.25 / 1.25, "d": 0.2 / 1.25})


def test_the_final_distribution_is_entopps_only_when_the_top_k_sets_differ() -> None:
    weighted, how = aggregate(MACHINE, SAME_TOP_2, 1.0, 3.0, k=2)
    assert how == "weighted"
    assert weighted == pytest.approx({"a": 0.5, "b": (0.3 + 3 * 0.4) / 4, "c": 0.2 / 4, "d": 0.3 / 4})
    mixed, how = aggregate(MACHINE, OTHER_TOP_2, k=2)
    assert (mixed, how) == (entopps(MACHINE, OTHER_TOP_2, 2), "entopps")
    assert aggregate(MACHINE, OTHER_TOP_2, 1.0, 3.0, k=2, method="weighted")[1] == "weighted"


def test_a_round_is_measured_with_the_runs_label_order_and_smoothing() -> None:
    machine, human = {"none": 0.7, "mild": 0.3}, {"moderate": 0.6, "severe": 0.4}
    measured = RoundInformation.measure(1, machine, human, ORDER, 0.2)
    assert measured.wasserstein == info.wasserstein(machine, human, ORDER) != info.total_variation(machine, human)
    for name, (a, b) in {"machine_human": (machine, human), "human_machine": (human, machine)}.items():
        assert getattr(measured, f"kl_{name}") == info.kl_divergence(a, b, 0.2) != info.kl_divergence(a, b)
        assert getattr(measured, f"cross_entropy_{name}") == info.cross_entropy(a, b, 0.2) != info.cross_entropy(a, b)
    [(found)] = rounds_of({1: machine, 2: human}, ORDER, 0.2)
    assert found == measured
    assert f"round {found.round}" == "round 1"


def test_labels_are_the_same_but_for_ascii_case_and_surrounding_spaces_only() -> None:
    assert same_label(" Pneumonia ", "pneumonia") and same_label("pneumonia", " PNEUMONIA")
    assert same_label("Xanthoma", "xanthoma") and same_label("xanthoma", "Xanthoma")
    assert not same_label("Pneumonia\n", "pneumonia") and not same_label("pneumonia", "\tPneumonia")
    assert rank("effusion", {"Pneumonia": 0.6, " Effusion ": 0.4}) == 2
