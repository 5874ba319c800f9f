"""Repeated runs of one configuration (DESIGN.md section 2): the papers' table gives each class's median count over the
runs with its minimum and maximum, and the proportion as the median count over the median number of sessions."""

from __future__ import annotations

from pxp_tui.protocol import RunCounts
from pxp_tui.protocol.intelligibility import CLASSES
from pxp_tui.protocol.repeats import Spread, curve_spread, spread


def test_a_spread_is_the_median_with_the_least_and_the_most() -> None:
    assert Spread.of([7]) == Spread(7.0, 7, 7)
    assert Spread.of([9, 2, 5]) == Spread(5.0, 2, 9)
    assert Spread.of([4, 1, 8, 3]) == Spread(3.5, 1, 8)  # an even count: the mean of the middle two


def test_the_spread_of_repeated_runs_class_by_class() -> None:
    runs = [
        RunCounts(sessions=20, one_way_human=10, one_way_machine=16, two_way=9, strong_human=4, ultra_strong_machine=2),
        RunCounts(sessions=20, one_way_human=14, one_way_machine=12, two_way=11, strong_human=6, ultra_strong_machine=0),
        RunCounts(sessions=18, one_way_human=12, one_way_machine=18, two_way=8, strong_human=2, ultra_strong_machine=5),
    ]
    table = spread(runs)
    assert table.runs == 3
    assert table.sessions == Spread(20.0, 18, 20)
    assert set(table.classes) == set(CLASSES)
    assert table.classes["one_way_human"] == Spread(12.0, 10, 14)
    assert table.classes["one_way_machine"] == Spread(16.0, 12, 18)
    assert table.classes["two_way"] == Spread(9.0, 8, 11)
    assert table.classes["strong_human"] == Spread(4.0, 2, 6)
    assert table.classes["ultra_strong_machine"] == Spread(2.0, 0, 5)
    assert table.classes["strong_machine"] == Spread(0.0, 0, 0)
    assert table.proportion("one_way_human") == 12 / 20
    assert table.proportion("two_way") == 9 / 20
    assert spread([RunCounts()]).proportion("two_way") == 0.0  # no sessions: no proportion to speak of


def test_the_curves_spread_over_the_runs_whose_bound_reaches_each_point() -> None:
    short = [RunCounts(sessions=5, two_way=1), RunCounts(sessions=5, two_way=2)]
    long = [RunCounts(sessions=6, two_way=0), RunCounts(sessions=6, two_way=4), RunCounts(sessions=6, two_way=5)]
    points = curve_spread([short, long])
    assert len(points) == 3
    assert [p.runs for p in points] == [2, 2, 1]
    assert [p.classes["two_way"] for p in points] == [Spread(0.5, 0, 1), Spread(3.0, 2, 4), Spread(5.0, 5, 5)]
    assert [p.sessions for p in points] == [Spread(5.5, 5, 6), Spread(5.5, 5, 6), Spread(6.0, 6, 6)]
    assert curve_spread([]) == []
