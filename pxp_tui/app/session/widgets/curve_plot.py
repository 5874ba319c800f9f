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
        """Draw ``curve``; returns its legend (where series run together, one marker stands for them, named
        in the legend: drawn apart, the last would hide the others)."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        finished = bool(curve) and curve[-1].sessions > 0
        plt.title("intelligibility vs message bound" if finished else "no finished session yet")
        plt.xlabel("bound j*")
        bounds: list[float] = list(range(1, len(curve) + 1))
        labels = [label for _, label in SERIES]
        if not finished:
            legend = LEGEND
        else:  # no label: the legend sits outside the plot; where series run together, one marker for them
            paths = [chart_style.steps(bounds, [c.proportion(name) for c in curve]) for name, _ in SERIES]
            found = chart_style.pieces(paths)
            styles = chart_style.piece_styles(found)
            for piece in found:
                shape, hue = styles[piece.owners]
                plt.plot(piece.xs, piece.ys, marker=shape, color=hue)
            legend = chart_style.pieces_legend(labels, styles)
        plt.ylim(0, 1)
        if bounds:
            plt.xlim(1, max(bounds[-1], 2))
            plt.xticks(bounds if len(bounds) <= 12 else bounds[:: max(1, len(bounds) // 10)])
        self.refresh()
        return legend
