"""The run's intelligibility, live: counts and proportions, sessions done and left, the curve, this session's tags."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.session.live_metrics import LiveMetrics
from pxp_tui.app.session.widgets.curve_plot import LEGEND, CurvePlot
from pxp_tui.app.session.widgets.information_plot import InformationPlot
from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.tags import tags_content
from pxp_tui.engine import Message
from pxp_tui.protocol import RunCounts, Sender, Tag

#: (class, label) in the papers' table order
ROWS: tuple[tuple[str, str], ...] = (
    ("one_way_human", "one-way, human"),
    ("one_way_machine", "one-way, machine"),
    ("two_way", "two-way"),
    ("strong_human", "strong, human"),
    ("strong_machine", "strong, machine"),
    ("ultra_strong_human", "ultra-strong, human"),
    ("ultra_strong_machine", "ultra-strong, machine"),
)


def counts_content(counts: RunCounts) -> Content:
    """The papers' table as aligned lines: class, count, proportion."""
    lines = []
    for name, label in ROWS:
        lines.append(
            Content.assemble(f"{label:<22}", (f"{getattr(counts, name):>4}", "bold"), f"  {counts.proportion(name):.2f}")
        )
    return Content("\n").join(lines)


class MetricsPane(Vertical):
    """Follows a :class:`LiveMetrics`; call :meth:`refresh_metrics` after it changes."""

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Metrics"
    ALLOW_MAXIMIZE = True

    def compose(self) -> ComposeResult:
        yield Static(id="metrics-sessions")
        yield Static(id="metrics-counts")
        yield CurvePlot(id="metrics-curve")
        yield Static(LEGEND, id="metrics-legend")
        yield Static(id="metrics-tags")
        yield InformationPlot(id="metrics-information")

    def refresh_metrics(self, metrics: LiveMetrics) -> None:
        self.query_one("#metrics-sessions", Static).update(
            Content.assemble(
                (f"{metrics.done}", "bold"),
                f" of {metrics.total} sessions done, ",
                (f"{metrics.left}", "bold"),
                " left",
                f", {metrics.skipped} skipped" if metrics.skipped else "",
            )
        )
        self.query_one("#metrics-counts", Static).update(counts_content(metrics.counts))
        if not self._chart_due:  # the chart a frame later: drawing it (plotext) doubled the outcome's frame
            self._chart_due = True
            self.call_after_refresh(self._show_curve, metrics)

    _chart_due = False

    def _show_curve(self, metrics: LiveMetrics) -> None:
        self._chart_due = False
        if self.is_attached:  # not closed meanwhile
            legend = self.query_one(CurvePlot).show(metrics.curve)  # the curve as it is now
            self.query_one("#metrics-legend", Static).update(legend)

    def show_session(self, tags: Sequence[tuple[Sender, Tag]]) -> None:
        self.query_one("#metrics-tags", Static).update(Content.assemble("This session: ", tags_content(tags)))

    def show_information(self, messages: Sequence[Message], order: Sequence[str] | None = None) -> None:
        """EVINCE's measures of the open session, round by round (shown once it has a round)."""
        self.query_one(InformationPlot).show(messages, order)
