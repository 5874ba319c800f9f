"""The end of a run: the papers' table for it, sessions and how they ended, time spent, what to do next.

The numbers are the blackboard's (the ``run_intelligibility`` view, as ``pxp metrics`` prints them),
read in a thread; the table is ``pxp metrics``'s text (``report.table``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from pxp_tui.app.shared.browser import NEW_RUN, REVIEW, named_key, served_keys
from pxp_tui.app.shared.export_run import ExportsRun, export_binding, folder, shown
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.header import header
from pxp_tui.app.shared.host import host
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible

if TYPE_CHECKING:
    from pxp_tui.blackboard.records import RunSummary
    from pxp_tui.blackboard.run_time import RunTime


@dataclass(frozen=True)
class Summary:
    """What the screen shows, read together."""

    run: RunSummary
    time: RunTime


def duration_text(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def endings_text(endings: dict[str, int]) -> str:
    words = {"ratified": "ratified", "rejected": "rejected", "bound": "at the message bound"}
    parts = [f"{endings[k]} {w}" for k, w in words.items() if endings.get(k)]
    return ", ".join(parts) if parts else "none finished"


def next_steps(run_id: int, db_path: Path) -> Content:
    """What to do next; the commands quoted for a shell, so that pasted they run as shown whatever the path holds."""
    db = [] if db_path.name == "sessions.db" and db_path.parent == Path() else ["--db", str(db_path)]
    lines = [
        Content.styled("What next", "bold"),
        Content.assemble((f"  {named_key(REVIEW)}", "bold $accent"), "  review this run, session by session"),
        Content.assemble(
            ("  e", "bold $accent"),
            "  export this run as spreadsheets to ",
            (visible(shown(folder(db_path, run_id)), one_line=True), "$text-accent"),
        ),
        Content.assemble((f"  {named_key(NEW_RUN)}", "bold $accent"), "  start a new run"),
        Content.assemble(("  escape", "bold $accent"), "  back to the last session   ", ("q", "bold $accent"), "  quit"),
        Content.styled("  The report and the tables, to copy:", "$text-muted"),
        Content.assemble(
            "  ", (visible(shlex.join(["pxp", "report", "--runs", str(run_id), *db]), one_line=True), "$text-accent")
        ),
        Content.assemble(
            "  ",
            (visible(shlex.join(["pxp", "export", "--run", str(run_id), "--format", "csv", *db]), one_line=True), "$text-accent"),
        ),
    ]
    return Content("\n").join(lines)


def _read(board: Any, run_id: int) -> Summary:
    from pxp_tui.blackboard import review
    from pxp_tui.blackboard.run_time import run_time

    return Summary(review.runs_row(board, run_id), run_time(board, run_id))


class SummaryScreen(ExportsRun, Screen[None]):
    """Run ``run_id``'s summary; ``r`` reviews it, ``ctrl+n`` starts another, escape goes back."""

    CSS_PATH = "summary.tcss"
    BINDINGS = [
        Binding(served_keys(REVIEW), "review", "Review this run", id="summary.review"),
        export_binding("summary"),
        # not n: an n pressed twice past the last outcome must not leave the summary for the start screen
        Binding(served_keys(NEW_RUN), "new_run", "New run", id="summary.new_run"),
        Binding("escape", "back", "Back to the session", id="summary.back"),
    ]

    def __init__(self, run_id: int, db_path: Path | str) -> None:
        super().__init__()
        self.run_id = run_id
        self.db_path = Path(db_path)
        self.summary: Summary | None = None
        self._review_board: Any = None

    def compose(self) -> ComposeResult:
        yield header()
        with VerticalScroll(id="summary-box"):
            yield Static(f"Run {self.run_id}", id="summary-title")
            yield Static("reading the blackboard…", id="summary-sessions")
            yield Static(id="summary-table")
            yield Static(next_steps(self.run_id, self.db_path), id="summary-next")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.sub_title = f"run {self.run_id} · summary"
        self.load()

    def on_unmount(self) -> None:
        if self._review_board is not None:
            self._review_board.close()

    @work(group="summary", exclusive=True)
    async def load(self) -> None:
        from pxp_tui.blackboard import BlackboardError

        try:
            summary = await host(self.app).read_board(_read, self.run_id)
        except (BlackboardError, ValueError) as exc:
            self.query_one("#summary-sessions", Static).update(Content(visible(f"Cannot read run {self.run_id}: {exc}")))
            return
        self.show(summary)

    def show(self, summary: Summary) -> None:
        from pxp_tui.report import table

        self.summary = summary
        run, counts, time = summary.run.run, summary.run.counts, summary.time
        state = "The run is finished" if run.finished else f"The run is {run.status.value}"
        self.query_one("#summary-title", Static).update(
            Content.assemble(
                (f"{state}: run {run.id}", "bold $success" if run.finished else "bold $warning"),
                visible(f" · {run.config.task.upper()} · {model_label(run.config.model)} · {run.human}", one_line=True),
            )
        )
        expert = run.config.expert
        self.query_one("#summary-sessions", Static).update(
            Content.assemble(
                *((("Expert    ", "bold"), (visible(expert, one_line=True) + "\n", "bold $text-accent")) if expert else ()),
                ("Sessions  ", "bold"),
                f"{time.finished} of {summary.run.planned} done: {endings_text(time.endings)}\n",
                ("Time      ", "bold"),
                f"{duration_text(time.in_sessions)} in sessions",
                (f" · {duration_text(time.span)} from the first to the last", "$text-muted"),
            )
        )
        grid = table.text([table.heading(run.id, run.config.task, run.human)], [counts])
        self.query_one("#summary-table", Static).update(Content(grid))

    def export_target(self) -> tuple[Any, Path, int]:
        return host(self.app).read_board, self.db_path, self.run_id

    def action_review(self) -> None:
        from pxp_tui.app.review.runs_screen import open_board
        from pxp_tui.app.review.sessions_screen import SessionsScreen
        from pxp_tui.blackboard import BlackboardError

        try:
            if self._review_board is None:
                self._review_board = open_board(self.db_path)
        except BlackboardError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.app.push_screen(SessionsScreen(self._review_board, self.run_id))

    def action_new_run(self) -> None:
        from pxp_tui.app.start.screen import StartScreen

        self.app.push_screen(StartScreen())

    def action_back(self) -> None:
        self.dismiss()
