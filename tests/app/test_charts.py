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


def test_where_series_run_together_one_marker_stands_for_them_and_the_legend_says_so() -> None:
    """All sessions ratified at once: the three curves are one line. Drawn whole, the last drawn hid the others
    (the expert saw one series and a legend naming three); now the meeting has its own marker, named."""
    empty = RunCounts(**{f.name: 0 for f in dataclasses.fields(RunCounts)})
    same = [
        dataclasses.replace(empty, sessions=2, one_way_human=2 * (j >= 2), one_way_machine=2 * (j >= 2), two_way=2 * (j >= 2))
        for j in range(1, 5)
    ]
    plot = CurvePlot()
    legend = plot.show(same).plain
    canvas = drawn(plot)
    meeting = chart_style.MEETING_MARKERS[0]
    assert meeting in canvas and not any(chart_style.marker(i) in canvas for i in range(len(SERIES)))
    assert legend == f"{meeting} 1-way H = 1-way M = 2-way"
    apart = plot.show(curve()).plain  # apart all along but at j* = 1 (1-way H and 2-way both 0 there)
    assert apart.startswith(LEGEND.plain)


def test_a_series_that_meets_another_for_some_bounds_shows_on_its_own_elsewhere() -> None:
    # 1-way H and 2-way equal from 3 on (the metrics pane at 4 of 6 sessions): each shows alone before, together after
    paths = [chart_style.steps([1, 2, 3, 4], ys) for ys in ([0, 0.5, 0.75, 0.75], [0, 0, 1, 1], [0, 0.25, 0.75, 0.75])]
    found = chart_style.pieces(paths)
    styles = chart_style.piece_styles(found)
    assert {p.owners for p in found} == {(0, 1, 2), (0,), (1,), (2,), (0, 2)}
    together = next(p for p in found if p.owners == (0, 2))
    assert together.xs[-1] == 4 and together.ys[-1] == 0.75
    legend = chart_style.pieces_legend(["H", "M", "T"], styles).plain
    assert legend == "● H  × M  ▲ T  ■ H = T  ◆ H = M = T"  # a meeting's marker: in order of first appearance
