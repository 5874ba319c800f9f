"""The intelligibility-versus-message-bound curve (the papers' figure), drawn with textual-plotext."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual_plotext import PlotextPlot

from pxp_tui.app.session.widgets import chart_style
from pxp_tui.app.shared.css import beside
from pxp_tui.protocol import RunCounts

#: (class, legend) drawn, in the papers' order
SERIES: tuple[tuple[str, str], ...] = (
    ("one_way_human", "1-way H"),
    ("one_way_machine", "1-way M"),
    ("two_way", "2-way"),
)
#: the curve's legend, shown beside it (under the plot, never over its lines)
LEGEND = chart_style.legend([label for _, label in SERIES])


class CurvePlot(PlotextPlot):
    """Proportion of sessions in each class when only messages ``j <= j*`` count, for ``j* = 1..n``."""

    DEFAULT_CSS = beside(__file__)

    def show(self, curve: Sequence[RunCounts]) -> Content:
        """Draw ``curve``; returns its legend (series on the same line all along share one marker: drawn
        apart, the last would hide the others)."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        finished = bool(curve) and curve[-1].sessions > 0
        plt.title("intelligibility vs message bound" if finished else "no finished session yet")
        plt.xlabel("bound j*")
        bounds: list[float] = list(range(1, len(curve) + 1))
        values = [[c.proportion(name) for c in curve] for name, _ in SERIES]
        groups = chart_style.same_groups(values) if finished else [[i] for i in range(len(SERIES))]
        if finished:  # no label: the legend sits outside the plot, each group of series with its own marker
            for group in groups:
                xs, ys = chart_style.steps(bounds, values[group[0]])
                plt.plot(xs, ys, marker=chart_style.marker(group[0]), color=chart_style.colour(group[0]))
        plt.ylim(0, 1)
        if bounds:
            plt.xlim(1, max(bounds[-1], 2))
            plt.xticks(bounds if len(bounds) <= 12 else bounds[:: max(1, len(bounds) // 10)])
        self.refresh()
        return chart_style.grouped_legend([label for _, label in SERIES], groups)
