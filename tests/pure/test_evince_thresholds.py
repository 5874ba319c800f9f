"""EVINCE's stop rules at their tolerance (paper 003, Figure 1): a change of exactly the tolerance counts as none, a
change beyond it counts; the same for the session summary's "WD fell" and "MI rose", and CRIT's fall."""

from __future__ import annotations

from pxp_harness.rounds import measured
from pxp_tui.protocol.evince import FIG1, PLATEAU, fig1_stops, plateau_stops, should_stop, summarise

TOLERANCE = 0.25  # with values in quarters the sums below are exact in floating point


BEFORE = measured(1, 0.5, 0.5)


def test_the_plateau_rule_counts_a_move_of_exactly_the_tolerance_as_none() -> None:
    assert plateau_stops(BEFORE, measured(2, 0.25, 0.5), TOLERANCE)  # WD fell by the tolerance: a plateau
    assert plateau_stops(BEFORE, measured(2, 0.5, 0.75), TOLERANCE)  # NMI rose by the tolerance: a plateau
    assert not plateau_stops(BEFORE, measured(2, 0.125, 0.5), TOLERANCE)
    assert not plateau_stops(BEFORE, measured(2, 0.5, 0.875), TOLERANCE)


def test_figure_1s_loop_goes_on_through_a_worsening_of_exactly_the_tolerance() -> None:
    assert not fig1_stops(BEFORE, measured(2, 0.75, 0.5), TOLERANCE)  # WD rose by the tolerance
    assert not fig1_stops(BEFORE, measured(2, 0.5, 0.25), TOLERANCE)  # NMI fell by the tolerance
    assert not fig1_stops(BEFORE, BEFORE, TOLERANCE, crit_before=5.0, crit_now=2.5)  # CRIT / 10 fell by it
    assert fig1_stops(BEFORE, measured(2, 0.875, 0.5), TOLERANCE)
    assert fig1_stops(BEFORE, measured(2, 0.5, 0.125), TOLERANCE)
    assert fig1_stops(BEFORE, BEFORE, TOLERANCE, crit_before=5.0, crit_now=2.0)
    assert not fig1_stops(BEFORE, BEFORE, TOLERANCE, crit_before=None, crit_now=0.0)


def test_the_summary_says_wd_fell_or_mi_rose_only_beyond_the_tolerance() -> None:
    even = summarise([BEFORE, measured(2, 0.25, 0.75)], TOLERANCE)
    assert not even.wasserstein_decreased and not even.mi_increased
    moved = summarise([BEFORE, measured(2, 0.125, 0.875)], TOLERANCE)
    assert moved.wasserstein_decreased and moved.mi_increased


def test_the_summary_finds_where_crit_alone_ends_figure_1s_loop() -> None:
    rounds = [measured(1, 0.5, 0.5), measured(2, 0.5, 0.5), measured(3, 0.5, 0.5)]
    judged = summarise(rounds, TOLERANCE, crit=[8.0, 7.5, 2.0])
    assert judged.fig1_at == 3 and judged.stopped_at(FIG1) == 3
    assert judged.plateau_at == 2 and judged.stopped_at(PLATEAU) == 2
    assert summarise(rounds, TOLERANCE).fig1_at is None
    assert should_stop(rounds, TOLERANCE, FIG1, [8.0, 7.5, 2.0]) and not should_stop(rounds[:2], TOLERANCE, FIG1, [8.0, 7.5])
