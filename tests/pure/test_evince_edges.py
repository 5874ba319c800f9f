"""EVINCE's stop rules at their edges: the literal MI when it is the one asked for, moves of exactly the tolerance
(the rules speak of moves of *more than* it), a tolerance other than the default carried to the outcome, and a
session's summary saying what each rule found where it first held."""

from __future__ import annotations

import pytest

from pxp_harness.rounds import measured
from pxp_tui.protocol.evince import (
    CONVERGED,
    DIVERGED,
    FIG1,
    MI,
    NMI,
    PLATEAU,
    STALLED,
    compared_mi,
    fig1_stops,
    outcome,
    plateau_stops,
    should_stop,
    stop_outcome,
    summarise,
)

# WD still; the normalised MI fell while the literal MI rose
MI_ROSE = (measured(1, 0.5, nmi=0.95, mi=0.5), measured(2, 0.5, nmi=0.5, mi=0.9))
# WD still; the normalised MI rose while the literal MI fell
MI_FELL = (measured(1, 0.5, nmi=0.5, mi=0.9), measured(2, 0.5, nmi=0.95, mi=0.5))


def test_an_mi_measure_not_known_is_refused_naming_the_two_there_are() -> None:
    with pytest.raises(ValueError) as refused:
        compared_mi(MI_ROSE[0], "bits")
    assert str(refused.value) == "the stop rules compare one of nmi, mi, got 'bits'"


def test_the_literal_mi_is_compared_when_asked_for_and_the_normalised_one_otherwise() -> None:
    assert (compared_mi(MI_ROSE[1], NMI), compared_mi(MI_ROSE[1], MI)) == (0.5, 0.9)
    # the plateau holds while MI did not rise: the normalised one fell, the literal one rose
    assert plateau_stops(*MI_ROSE, mi=NMI) and not plateau_stops(*MI_ROSE, mi=MI)
    assert should_stop(MI_ROSE, rule=PLATEAU, mi=NMI) and not should_stop(MI_ROSE, rule=PLATEAU, mi=MI)
    # Figure 1's loop ends when MI fell: the literal one fell, the normalised one rose
    assert fig1_stops(*MI_FELL, mi=MI) and not fig1_stops(*MI_FELL, mi=NMI)
    assert should_stop(MI_FELL, rule=FIG1, mi=MI) and not should_stop(MI_FELL, rule=FIG1, mi=NMI)
    assert stop_outcome(MI_FELL, rule=FIG1, mi=MI) == STALLED and stop_outcome(MI_FELL, rule=FIG1, mi=NMI) is None


def test_a_summary_finds_where_each_rule_held_comparing_the_mi_asked_for() -> None:
    by_nmi, by_mi = summarise(MI_ROSE, mi=NMI), summarise(MI_ROSE, mi=MI)
    assert (by_nmi.plateau_at, by_nmi.outcome_of(PLATEAU)) == (2, STALLED)
    assert (by_mi.plateau_at, by_mi.outcome_of(PLATEAU)) == (None, None)
    assert summarise(MI_FELL, mi=MI).fig1_at == 2 and summarise(MI_FELL, mi=NMI).fig1_at is None


@pytest.mark.parametrize(
    ("before", "after", "found"),
    [
        (0.25, 0.5, STALLED),  # rose by exactly the tolerance: not diverged
        (0.75, 0.5, STALLED),  # fell by exactly the tolerance: not converged, the agents still apart
        (0.25, 0.25, CONVERGED),  # WD at the tolerance: the two within it of each other
        (0.25, 0.5 + 2**-10, DIVERGED),
        (0.75 + 2**-10, 0.5, CONVERGED),
    ],
)
def test_a_move_of_exactly_the_tolerance_is_no_move(before: float, after: float, found: str) -> None:
    # quarters and powers of two: the sums are exact in floating point
    assert outcome(measured(1, before), measured(2, after), tolerance=0.25) == found


def test_the_tolerance_asked_for_is_the_one_the_outcome_uses() -> None:
    rounds = (measured(1, 0.5), measured(2, 0.4))  # WD fell by 0.1: no move at 0.25, a fall at the default 0.01
    assert stop_outcome(rounds, tolerance=0.25, rule=PLATEAU) == STALLED
    assert stop_outcome(rounds, rule=FIG1) is None  # at the default, nothing that ends Figure 1's loop


def test_a_summary_says_what_each_rule_found_where_it_first_held() -> None:
    rounds = (measured(1, 0.5), measured(2, 0.5), measured(3, 0.9))  # still, then WD rose
    summary = summarise(rounds)
    assert (summary.plateau_at, summary.plateau_outcome) == (2, STALLED)
    assert (summary.fig1_at, summary.fig1_outcome) == (3, DIVERGED)
    assert (summary.outcome_of(PLATEAU), summary.outcome_of(FIG1)) == (STALLED, DIVERGED)
