"""The review's first screen: every run in the blackboard with its configuration and counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from pxp_tui.app.review.leaving import leave
from pxp_tui.app.review.reader import ReviewBoard
from pxp_tui.app.shared.browser import REFRESH, named_key, served_keys
from pxp_tui.app.shared.export_run import ExportsRun, export_binding
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.header import header
from pxp_tui.blackboard import BlackboardError, review
from pxp_tui.blackboard.records import RunSummary
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible
from pxp_tui.engine import RunStatus

#: (column key, header) of the runs list: the counts first, so that they show at 80 columns
COLUMNS = (
    ("id", "run"),
    ("task", "task"),
    ("human", "human"),
    ("progress", "sessions"),
    ("one_way", "1-way h·m"),
    ("two_way", "2-way"),
    ("strong", "strong h·m"),
    ("ultra_strong", "ultra h·m"),
    ("status", "status"),
    ("model", "machine"),
    ("dataset", "dataset"),
    ("date", "date"),
    ("experiment", "experiment"),
)
#: columns left out, in this order, when the runs are wider than the screen: the least useful first (at 80
#: columns the counts and the status stay; at 120, the machine and the date too)
DROP_FIRST = ("experiment", "dataset", "model", "date")
#: seconds between refreshes while a run is being written
LIVE_REFRESH = 2.0


def open_board(path: Path) -> ReviewBoard:
    """The blackboard read-only, read on one thread (never blocks nor changes a run being written to the same file)."""
    return ReviewBoard(path)


def fitting(rows: list[list[Any]], room: int) -> list[str]:
    """The keys of the columns that fit in ``room`` cells (each column's widest cell and a cell's padding)."""
    keys = [key for key, _ in COLUMNS]
    width = {key: max([cell_len(label)] + [cell_len(str(row[i])) for row in rows]) for i, (key, label) in enumerate(COLUMNS)}
    shown = [key for i, key in enumerate(keys) if key != "experiment" or any(str(row[i]) for row in rows)]
    for key in DROP_FIRST:
        if sum(width[k] + 2 for k in shown) <= room:
            break
        if key in shown:
            shown.remove(key)
    return shown


def cells(summary: RunSummary) -> list[Any]:
    run, counts = summary.run, summary.counts
    values = {
        "id": run.id,
        "task": run.config.task.upper(),
        "human": run.human,
        "status": str(run.status),
        "dataset": run.config.dataset,
        "date": run.created_at[:16].replace("T", " "),
        "progress": f"{counts.sessions}/{summary.planned}",
        "two_way": counts.two_way,
        **{
            kind: f"{getattr(counts, kind + '_human')} · {getattr(counts, kind + '_machine')}"
            for kind in ("one_way", "strong", "ultra_strong")
        },
        "experiment": run.config.experiment or "",
        "model": model_label(run.config.model),
    }
    # text as stored, shown as text: a str cell would be read as markup, and a name may hold terminal escapes
    return [
        Text(visible(value, one_line=True)) if isinstance(value, str) else value for value in (values[key] for key, _ in COLUMNS)
    ]


class ReviewScreen(ExportsRun, Screen):
    """Runs of the blackboard at ``db_path``; Enter opens a run's sessions. Read-only."""

    CSS_PATH = "runs_screen.tcss"
    BINDINGS = [
        Binding("enter", "open_run", "Sessions", id="review.runs.open"),
        Binding(served_keys(REFRESH), "refresh", "Refresh", id="review.runs.refresh"),
        export_binding("review.runs"),
        Binding("escape", "back", "Back", id="review.runs.back"),
    ]

    def __init__(self, db_path: Path | str, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.db_path = Path(db_path)
        self.board: ReviewBoard | None = None
        self.runs: list[RunSummary] = []

    def compose(self) -> ComposeResult:
        yield header()
        yield Static(Content(visible(f"Runs in {self.db_path}", one_line=True)), id="runs-title")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="runs-status")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.title, self.sub_title = "PXP review", str(self.db_path)
        try:
            self.board = open_board(self.db_path)
        except BlackboardError as exc:
            self.query_one("#runs-status", Static).update(Content(visible(f"cannot open: {exc}")))
            return
        self.load()
        self.set_interval(LIVE_REFRESH, self._live_refresh)

    def on_unmount(self) -> None:
        if self.board is not None:
            self.board.close()

    @work(group="runs")  # reads queue on the reader's one thread: shown in the order asked, the last one last
    async def load(self) -> None:
        assert self.board is not None
        runs = await self.board.read(review.runs)
        if self in self.app.screen_stack:  # not closed while the read was on its way
            self._show(runs)

    def _show(self, runs: list[RunSummary]) -> None:
        table = self.query_one("#runs-table", DataTable)
        keep = table.cursor_row
        rows = [cells(run) for run in runs]
        shown = fitting(rows, self.size.width - 2)  # a scrollbar's room
        if [str(c.key.value) for c in table.ordered_columns] != shown:
            table.clear(columns=True)
            labels = dict(COLUMNS)
            for key in shown:
                table.add_column(labels[key], key=key)
        else:
            table.clear()
        index = [key for key, _ in COLUMNS]
        for run, row in zip(runs, rows, strict=True):
            table.add_row(*(row[index.index(key)] for key in shown), key=str(run.run.id))
        if runs:
            table.move_cursor(row=min(keep, len(runs) - 1))
        self.runs = runs
        live = sum(r.run.status is RunStatus.RUNNING for r in runs)
        status = f"{len(runs)} run(s)" + (f", {live} being written (refreshing)" if live else "")
        self.query_one("#runs-status", Static).update(
            status + f" · Enter: a run's sessions · e: export · {named_key(REFRESH)}: refresh"
        )

    def on_resize(self) -> None:
        if self.runs:
            self._show(self.runs)  # the columns that fit the new width

    def _live_refresh(self) -> None:
        if self.board is not None and not self.board.pending and any(r.run.status is RunStatus.RUNNING for r in self.runs):
            self.load()  # a refresh is not asked while a read is still on its way

    def action_refresh(self) -> None:
        if self.board is not None:
            self.load()

    def _selected(self) -> int | None:
        table = self.query_one("#runs-table", DataTable)
        if self.board is None or not self.runs:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return None if row_key.value is None else int(row_key.value)

    def export_target(self) -> tuple[Any, Path, int] | None:
        run_id = self._selected()
        return None if run_id is None or self.board is None else (self.board.read, self.db_path, run_id)

    def action_open_run(self) -> None:
        from pxp_tui.app.review.sessions_screen import SessionsScreen

        run_id = self._selected()
        if run_id is not None and self.board is not None:
            self.app.push_screen(SessionsScreen(self.board, run_id))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()

    def action_back(self) -> None:
        leave(self)  # its reads stop first
