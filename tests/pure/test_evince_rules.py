"""EVINCE's debate rules: per-round measures, the stop rule, the session summary, contentiousness, the final mix."""

from __future__ import annotations

import pytest

from pxp_harness.rounds import measured
from pxp_tui.protocol import information as info
from pxp_tui.protocol.evince import (
    FIG1,
    PLATEAU,
    RoundInformation,
    combine,
    contentiousness,
    rounds_of,
    should_stop,
    summarise,
)
from pxp_tui.protocol.information import DistributionError
from pxp_tui.tasks.rad.labels import LABELS

# The paper's Appendix C debate (Jaundice vs Hepatitis), GPT-4 opening and Claude answering.
GPT_1 = {"Hepatitis C": 0.40, "Hepatitis B": 0.30, "Cirrhosis": 0.15, "Obstructive Jaundice": 0.10, "Acute Liver Failure": 0.05}
CLAUDE_1 = {
    "Hepatitis B": 0.35,
    "Hepatitis C": 0.25,
    "Obstructive Jaundice": 0.20,
    "Alcoholic Hepatitis": 0.15,
    "Hepatitis A": 0.05,
}
GPT_2, CLAUDE_2 = CLAUDE_1, GPT_1  # in its second round each model states the other's first distribution
GPT_3 = {"Hepatitis C": 0.35, "Hepatitis B": 0.25, "Cirrhosis": 0.20, "Obstructive Jaundice": 0.15, "Acute Liver Failure": 0.05}
CLAUDE_3 = {
    "Hepatitis C": 0.35,
    "Hepatitis B": 0.30,
    "Cirrhosis": 0.20,
    "Obstructive Jaundice": 0.10,
    "Acute Liver Failure": 0.05,
}


def test_a_round_carries_every_measure() -> None:
    machine = {"Atelectasis": 0.6, "Pneumonia": 0.3, "Pleural Effusion": 0.1}
    human = {"Pneumonia": 0.6, "Atelectasis": 0.3, "Cardiomegaly": 0.1}
    measured = RoundInformation.measure(1, machine, human, LABELS)
    assert measured.as_dict() == {
        "round": 1,
        "entropy_machine": info.entropy(machine),
        "entropy_human": info.entropy(human),
        "js_divergence": info.js_divergence(machine, human),
        "wasserstein": info.wasserstein(machine, human, LABELS),
        "kl_machine_human": info.kl_divergence(machine, human),
        "kl_human_machine": info.kl_divergence(human, machine),
        "cross_entropy_machine_human": info.cross_entropy(machine, human),
        "cross_entropy_human_machine": info.cross_entropy(human, machine),
        "mutual_information": info.mutual_information(machine, human),
        "normalised_mi": info.normalised_mutual_information(machine, human),
        "kl_machine_human_raw": info.kl_divergence(machine, human, 0),
        "kl_human_machine_raw": info.kl_divergence(human, machine, 0),
        "cross_entropy_machine_human_raw": info.cross_entropy(machine, human, 0),
        "cross_entropy_human_machine_raw": info.cross_entropy(human, machine, 0),
    }
    # each names a label the other gives 0: the raw measures are infinite, the smoothed finite
    assert measured.kl_machine_human_raw == float("inf") and measured.cross_entropy_human_machine_raw == float("inf")
    assert RoundInformation.measure(1, machine, human, smoothing=0.1).kl_machine_human < measured.kl_machine_human
    # RAD's order: Atelectasis, Pneumonia, Pleural Effusion, Cardiomegaly, Pneumothorax; cumulative
    # differences 0.3, 0, 0.1, 0 -> 0.4
    assert measured.wasserstein == pytest.approx(0.4)
    # without an order, labels are nominal: the total variation
    assert RoundInformation.measure(1, machine, human).wasserstein == pytest.approx(0.4)
    with pytest.raises(ValueError):
        RoundInformation.measure(0, machine, human)


@pytest.mark.parametrize(
    ("wd", "nmi", "plateau", "fig1"),
    [
        (0.8, 0.4, False, False),  # WD fell: progress for both
        (1.0, 0.5, False, False),  # MI rose: progress for both
        (1.0, 0.4, True, False),  # flat: the plateau rule stops, Figure 1's loop (<=, >=) goes on
        (1.1, 0.3, True, True),  # both worse: both stop
        (1.2, 0.5, False, True),  # WD up and NMI up: the plateau rule goes on, Figure 1 stops
        (0.8, 0.3, False, True),  # WD down and NMI down: likewise
    ],
)
def test_the_two_stop_rules_where_they_differ(wd: float, nmi: float, plateau: bool, fig1: bool) -> None:
    rounds = [measured(1, 1.0, 0.4), measured(2, wd, nmi)]
    assert should_stop(rounds, rule=PLATEAU) is plateau
    assert should_stop(rounds, rule=FIG1) is fig1
    assert not should_stop(rounds[:1], rule=PLATEAU) and not should_stop(rounds[:1], rule=FIG1)  # nothing to compare yet


def test_the_tolerance_counts_small_moves_as_none() -> None:
    small = [measured(1, 1.0, 0.4), measured(2, 0.995, 0.405)]
    assert should_stop(small, rule=PLATEAU) and not should_stop(small, tolerance=1e-9, rule=PLATEAU)
    worse = [measured(1, 1.0, 0.4), measured(2, 1.005, 0.395)]
    assert not should_stop(worse, rule=FIG1) and should_stop(worse, tolerance=1e-9, rule=FIG1)
    # CRIT on its 1-10 scale: a fall of 0.05 is within 0.01 of CRIT / 10; a fall of 0.5 is not
    flat = [measured(1, 1.0, 0.4), measured(2, 1.0, 0.4)]
    assert not should_stop(flat, rule=FIG1, crit=[6.0, 5.95]) and should_stop(flat, rule=FIG1, crit=[6.0, 5.5])
    assert not should_stop(flat, rule=FIG1, crit=[6.0, None])  # a round not judged: WD and NMI only


def test_on_the_papers_own_debate_the_rule_stops_when_the_models_swap_distributions() -> None:
    rounds = [
        RoundInformation.measure(r, g, c) for r, (g, c) in enumerate(((GPT_1, CLAUDE_1), (GPT_2, CLAUDE_2), (GPT_3, CLAUDE_3)), 1)
    ]
    # round 2 is round 1 with the agents swapped: every symmetric measure is unchanged
    assert rounds[1].wasserstein == pytest.approx(rounds[0].wasserstein)
    assert rounds[1].normalised_mi == pytest.approx(rounds[0].normalised_mi)
    assert rounds[1].kl_machine_human == pytest.approx(rounds[0].kl_human_machine)
    summary = summarise(rounds)
    assert summary.plateau_at == 2  # the plateau rule would have stopped before the agreement of round 3
    assert summary.fig1_at is None  # Figure 1's loop goes on, as the paper's debate did
    assert summary.rounds == 3 and summary.first is rounds[0] and summary.last is rounds[2]
    assert summary.wasserstein_decreased and summary.mi_increased
    assert rounds[2].js_divergence < 0.01 < rounds[0].js_divergence


def test_a_summary_of_a_session_that_never_settles() -> None:
    summary = summarise([measured(1, 2.0, 0.1), measured(2, 1.0, 0.2), measured(3, 1.5, 0.05)])
    assert summary.plateau_at == summary.fig1_at == 3 and summary.wasserstein_decreased and not summary.mi_increased
    moving = summarise([measured(1, 2.0, 0.1), measured(2, 1.0, 0.2)])
    assert moving.plateau_at is None and moving.fig1_at is None and moving.stopped_at(FIG1) is None
    with pytest.raises(ValueError):
        summarise([])


def test_contentiousness_is_held_two_rounds_then_lowered_a_quarter_a_round() -> None:
    levels = [contentiousness(r) for r in range(1, 6)]
    assert levels == pytest.approx([0.9, 0.9, 0.675, 0.50625, 0.3796875])
    assert [round(100 * x) for x in levels] == [90, 90, 68, 51, 38]  # the paper's footnote: 90, 90, 68, 50, 38
    assert contentiousness(3, start=0.5, decay=0.5, hold=0) == pytest.approx(0.0625)
    with pytest.raises(ValueError):
        contentiousness(0)
    with pytest.raises(ValueError):
        contentiousness(1, start=1.5)


def test_the_final_prediction_weights_the_two_distributions() -> None:
    machine, human = {"a": 0.8, "b": 0.2}, {"b": 0.6, "c": 0.4}
    assert combine(machine, human) == pytest.approx({"a": 0.4, "b": 0.4, "c": 0.2})
    assert combine(machine, human, 3, 1) == pytest.approx({"a": 0.6, "b": 0.3, "c": 0.1})
    assert combine(machine, human, 0, 1) == pytest.approx({"a": 0.0, "b": 0.6, "c": 0.4})
    for weights in ((0, 0), (-1, 2), (float("nan"), 1)):
        with pytest.raises(DistributionError):
            combine(machine, human, *weights)


def test_rounds_pair_each_machine_message_with_the_answer_to_it() -> None:
    a, b = {"Atelectasis": 1.0}, {"Pneumonia": 1.0}
    rounds = rounds_of({1: a, 2: b, 3: b, 4: b, 5: a}, LABELS)
    assert [r.round for r in rounds] == [1, 2]  # message 5 opens a round nobody answered
    assert rounds[0].wasserstein == 1 and rounds[1].wasserstein == 0
    assert [r.round for r in rounds_of({1: a, 3: a, 4: b})] == [2]  # message 2 had no distribution
