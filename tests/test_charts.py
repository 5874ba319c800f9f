"""The metrics pane's charts: each series its own marker (so NO_COLOR and grey terminals tell them apart), the
legend outside the plot, counts drawn as steps."""

from __future__ import annotations

import dataclasses
import re

from pxp_tui.app.session.widgets import chart_style
from pxp_tui.app.session.widgets.curve_plot import LEGEND, SERIES, CurvePlot
from pxp_tui.protocol import RunCounts

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def curve() -> list[RunCounts]:
    empty = RunCounts(**{f.name: 0 for f in dataclasses.fields(RunCounts)})
    return [
        dataclasses.replace(empty, sessions=4, one_way_human=min(j, 4), one_way_machine=min(j + 1, 4), two_way=max(0, j - 1))
        for j in range(5)
    ]


def drawn(plot: CurvePlot) -> str:
    plot.plt.plotsize(60, 15)
    return ANSI.sub("", plot.plt.build())


def test_each_series_has_its_own_marker_and_the_legend_is_outside_the_plot() -> None:
    plot = CurvePlot()
    plot.show(curve())
    canvas = drawn(plot)
    markers = [chart_style.marker(i) for i in range(len(SERIES))]
    assert len(set(markers)) == len(SERIES)
    for marker in markers:
        assert marker in canvas  # told apart by shape, not by colour alone
    for _, label in SERIES:
        assert label not in canvas  # no legend drawn over the lines
        assert label in LEGEND.plain
    assert LEGEND.plain == "  ".join(f"{m} {label}" for m, (_, label) in zip(markers, SERIES, strict=True))


def test_counts_are_drawn_as_steps() -> None:
    xs, ys = chart_style.steps([1, 2, 3], [0.25, 0.5, 0.5])
    assert (xs, ys) == ([1, 2, 2, 3, 3], [0.25, 0.25, 0.5, 0.5, 0.5])
    assert chart_style.steps([], []) == ([], [])
    plot = CurvePlot()
    plot.show(curve())
    rows = [line for line in drawn(plot).splitlines() if "┤" in line or "│" in line]
    one_way_machine = chart_style.marker(1)
    assert any(line.count(one_way_machine) >= 5 for line in rows)  # a level run of the marker, not a slope


def test_series_on_the_same_line_share_one_marker_and_the_legend_says_so() -> None:
    """All sessions ratified at once: the three curves are one line. Drawn apart, the last drawn hid the others
    (the expert saw one series and a legend naming three); now one marker stands for all three and says so."""
    empty = RunCounts(**{f.name: 0 for f in dataclasses.fields(RunCounts)})
    same = [
        dataclasses.replace(empty, sessions=2, one_way_human=2 * (j >= 2), one_way_machine=2 * (j >= 2), two_way=2 * (j >= 2))
        for j in range(1, 5)
    ]
    plot = CurvePlot()
    legend = plot.show(same).plain
    canvas = drawn(plot)
    assert chart_style.marker(0) in canvas and chart_style.marker(1) not in canvas and chart_style.marker(2) not in canvas
    assert legend == f"{chart_style.marker(0)} 1-way H = 1-way M = 2-way"
    apart = plot.show(curve()).plain  # different all along: each its own, as before
    assert apart == LEGEND.plain


def test_series_are_grouped_by_their_values_in_order() -> None:
    assert chart_style.same_groups([[0, 1], [0, 1], [0, 0.5]]) == [[0, 1], [2]]
    assert (
        chart_style.grouped_legend(["a", "b", "c"], [[0, 1], [2]]).plain
        == f"{chart_style.marker(0)} a = b  {chart_style.marker(2)} c"
    )
