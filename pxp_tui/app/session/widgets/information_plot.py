"""EVINCE's measures of the open session, round by round: a table and a small line chart.

Shown in the metrics pane once the session has a round (two messages with distributions: a
machine-machine run with ``--top-k``), or a round left out because a reply stated no distribution (listed as
such); hidden otherwise. The measures are the pure functions of
:mod:`pxp_tui.protocol.evince` (microseconds), the same the blackboard stores.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static
from textual_plotext import PlotextPlot

from pxp_tui.app.session.widgets import chart_style
from pxp_tui.engine import Message
from pxp_tui.engine.types import distributions, unstated_rounds
from pxp_tui.protocol.evince import RoundInformation, rounds_of

#: (measure, legend) drawn in the chart
SERIES: tuple[tuple[str, str], ...] = (("wasserstein", "WD"), ("js_divergence", "JSD"), ("normalised_mi", "NMI"))


def rounds_content(rounds: Sequence[RoundInformation], left_out: Sequence[int] = ()) -> Content:
    """One line per round: the two entropies, WD, JSD, NMI; a round in ``left_out`` (a reply stated no
    distribution) says so in their place."""
    lines = [Content.styled(" r  H m   H o   WD    JSD   NMI", "bold")]
    measured = {r.round: r for r in rounds}
    for n in sorted({*measured, *left_out}):
        r = measured.get(n)
        if r is None:
            lines.append(Content.styled(f"{n:>2} left out: no distribution stated", "$text-muted"))
            continue
        lines.append(
            Content(
                f"{r.round:>2} {r.entropy_machine:4.2f}  {r.entropy_human:4.2f}  {r.wasserstein:4.2f}  "
                f"{r.js_divergence:4.2f}  {r.normalised_mi:4.2f}"
            )
        )
    return Content("\n").join(lines)


class InformationPlot(Vertical):
    """The open session's rounds: call :meth:`show` with its messages after each one."""

    DEFAULT_CSS = """
    InformationPlot { height: auto; display: none; }
    InformationPlot.-shown { display: block; }
    InformationPlot #information-rounds { height: auto; }
    InformationPlot #information-legend { height: auto; padding: 0 1; }
    InformationPlot PlotextPlot { height: 10; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="information-rounds")
        yield PlotextPlot(id="information-chart")
        yield Static(chart_style.legend([label for _, label in SERIES]), id="information-legend")

    def show(self, messages: Sequence[Message], order: Sequence[str] | None = None) -> list[RoundInformation]:
        rounds = rounds_of(distributions(messages), order)
        left_out = unstated_rounds(messages)
        self.set_class(bool(rounds or left_out), "-shown")
        if not rounds and not left_out:
            return rounds
        self.query_one("#information-rounds", Static).update(
            Content.assemble(("Information, this session", "bold"), "\n", rounds_content(rounds, left_out))
        )
        self.query_one(PlotextPlot).display = bool(rounds)
        if not rounds:
            return rounds
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("WD, JSD, NMI by round")
        xs: list[float] = [float(r.round) for r in rounds]
        for i, (name, _label) in enumerate(SERIES):  # the legend is outside the plot: #information-legend
            plt.plot(xs, [getattr(r, name) for r in rounds], marker=chart_style.marker(i), color=chart_style.colour(i))
        plt.xlim(1, max(xs[-1], 2))
        plt.xticks(xs)
        plot.refresh()
        return rounds
