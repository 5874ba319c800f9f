"""A run's sessions: instance, tag sequence as glyphs, intelligibility flags, messages, stop reason.

Filtered by class and text, sorted by any column (select its header, or ``s`` / ``S``), a page at a
time: every page is one query bounded by the run (see ``pxp_tui.blackboard.review``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Select, Static

from pxp_tui.app.review import glyphs
from pxp_tui.app.review.filter_bar import CLASS_LABELS, FilterBar
from pxp_tui.app.review.leaving import leave
from pxp_tui.app.review.messages import FilterChanged
from pxp_tui.app.review.reader import ReviewBoard
from pxp_tui.app.review.review_notes import ReviewNotes, note_cell
from pxp_tui.app.shared.browser import FILTER, REFRESH, served_keys
from pxp_tui.app.shared.export_run import ExportsRun, export_binding
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.header import header
from pxp_tui.app.shared.session_notes import note_bindings
from pxp_tui.blackboard import Blackboard, notes, review
from pxp_tui.blackboard.records import RunSummary
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible
from pxp_tui.engine import RunStatus

#: (column key = sort key of pxp_tui.blackboard.review.SORTS, header)
COLUMNS = (
    ("order", "#"),
    ("instance", "instance"),
    ("tags", "tags"),
    ("one_way", "1-way"),
    ("two_way", "2-way"),
    ("strong", "strong"),
    ("ultra_strong", "ultra"),
    ("messages", "msgs"),
    ("stop", "stop"),
    ("note", "note"),
)
LIVE_REFRESH = 2.0


def row_cells(row: review.SessionRow) -> list[Any]:
    one, two, strong, ultra = glyphs.flag_cells(row.flags)
    stop = Text(visible(row.stop_reason, one_line=True)) if row.stop_reason else Text("unfinished", style="italic")
    # the instance's name as stored: a str cell would be read as markup (`[nH]` in a SMILES would vanish)
    name = Text(visible(str(row.instance), one_line=True))
    cells = [row.order + 1, name, glyphs.tag_glyphs(row.tags), one, two, strong, ultra, row.n_messages, stop]
    return [*cells, Text(note_cell(row.flagged, row.note))]


class SessionsScreen(ExportsRun, ReviewNotes, Screen):
    """Sessions of run ``run_id``; Enter replays one; ``b`` and ``n`` flag and note the one under the cursor."""

    CSS_PATH = "sessions_screen.tcss"
    BINDINGS = [
        Binding("enter", "replay", "Replay", id="review.sessions.replay"),
        Binding("slash", "find", "Find text", id="review.sessions.find"),
        Binding(served_keys(FILTER), "filter_class", "Filter class", id="review.sessions.filter"),
        Binding("o", "sort_next", "Order by", id="review.sessions.sort"),
        Binding("O", "sort_reverse", "Reverse", id="review.sessions.reverse"),
        Binding("right_square_bracket", "page(1)", "Next page", id="review.sessions.next_page"),
        Binding("left_square_bracket", "page(-1)", "Prev page", id="review.sessions.prev_page"),
        Binding(served_keys(REFRESH), "refresh", "Refresh", id="review.sessions.refresh"),
        export_binding("review.sessions"),
        *note_bindings("review.sessions"),
        Binding("escape", "back", "Runs", id="review.sessions.back"),
    ]

    def export_target(self) -> tuple[Any, Path, int]:
        return self.board.read, self.board.path, self.run_id

    def __init__(self, board: ReviewBoard, run_id: int) -> None:
        super().__init__()
        self.board = board
        self.run_id = run_id
        self.query_state = review.Query()
        self.page: review.Page | None = None
        self.summary: RunSummary | None = None

    def compose(self) -> ComposeResult:
        yield header()
        yield Static("", id="sessions-title")
        yield FilterBar(id="sessions-filter")
        table: DataTable = DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        yield table
        yield Static("", id="sessions-status")
        yield Static(glyphs.LEGEND + "  (human's underlined)", id="sessions-legend")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.title = "PXP review"
        self.query_one("#sessions-table", DataTable).focus()
        self.load()
        self.set_interval(LIVE_REFRESH, self._live_refresh)

    # -- loading ------------------------------------------------------------------------------------
    @work(group="sessions")  # reads queue on the reader's one thread: shown in the order asked, the last one last
    async def load(self) -> None:
        run, page, self.skipped = await self.board.read(_read, self.run_id, self.query_state)
        if self in self.app.screen_stack:  # not closed while the read was on its way
            self._show(run, page)

    def _show(self, line: RunSummary, page: review.Page) -> None:
        self.summary, self.page = line, page
        self.sub_title = f"run {self.run_id}"
        run, c = line.run, line.counts
        summary = (
            f"1-way h {c.one_way_human} m {c.one_way_machine} · 2-way {c.two_way} · "
            f"strong h {c.strong_human} m {c.strong_machine} · "
            f"ultra h {c.ultra_strong_human} m {c.ultra_strong_machine}"
        )
        about = visible(
            f"Run {self.run_id} · {run.config.task.upper()} on {run.config.dataset} · machine {model_label(run.config.model)} · "
            f"human {run.human} · n={run.config.n} k={run.config.k}{''.join(f' · {r}' for r in run.config.rules())} · {run.status}",
            one_line=True,
        )
        self.query_one("#sessions-title", Static).update(
            Content(f"{about}\n{c.sessions}/{line.planned} finished{self._skipped_text()} · {summary}")
        )
        table = self.query_one("#sessions-table", DataTable)
        keep = table.cursor_row
        table.clear()
        for row in page.rows:
            table.add_row(*row_cells(row), key=str(row.session_id))
        if page.rows:
            table.move_cursor(row=min(keep, len(page.rows) - 1))
        self.query_one("#sessions-status", Static).update(Content(visible(self._status(page), one_line=True)))

    def _status(self, page: review.Page) -> str:
        q = self.query_state
        shown = f"{page.offset + 1}–{page.offset + len(page.rows)}" if page.rows else "none"
        parts = [f"sessions {shown} of {page.total:,}"]
        label = dict(COLUMNS).get(q.sort, q.sort)
        parts.append(f"sorted by {label} {'↓' if q.descending else '↑'}")
        if q.kind:
            parts.append(f"class: {CLASS_LABELS[q.kind]}")
        if q.text:
            parts.append(f"text: {q.text!r}")
        return " · ".join(parts)

    def _live_refresh(self) -> None:
        if self.summary is not None and self.summary.run.status is RunStatus.RUNNING and not self.board.pending:
            self.load()  # a refresh is not asked while a read is still on its way

    def _requery(self, **changes: Any) -> None:
        self.query_state = replace(self.query_state, **changes)
        self.load()

    # -- events and actions -------------------------------------------------------------------------
    def on_filter_changed(self, event: FilterChanged) -> None:
        self._requery(kind=event.kind, text=event.text, offset=0)
        if event.chosen:  # a class chosen from the list: back to the sessions, where enter replays one
            self.query_one("#sessions-table", DataTable).focus()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        key = str(event.column_key.value)
        same = key == self.query_state.sort
        self._requery(sort=key, descending=not self.query_state.descending if same else False, offset=0)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_replay()

    def action_sort_next(self) -> None:
        keys = [key for key, _ in COLUMNS]
        following = keys[(keys.index(self.query_state.sort) + 1) % len(keys)] if self.query_state.sort in keys else keys[0]
        self._requery(sort=following, offset=0)

    def action_sort_reverse(self) -> None:
        self._requery(descending=not self.query_state.descending, offset=0)

    def action_page(self, step: int) -> None:
        if self.page is None:
            return
        offset = self.query_state.offset + step * self.query_state.limit
        if 0 <= offset < max(self.page.total, 1):
            self._requery(offset=offset)

    def action_find(self) -> None:
        self.query_one("#filter-text").focus()

    def action_filter_class(self) -> None:
        select = self.query_one("#filter-class", Select)
        select.focus()
        select.expanded = True  # the list open at once: choosing is the next key

    def action_refresh(self) -> None:
        self.load()

    def cursor_session(self) -> review.SessionRow | None:
        """The session under the cursor, or None."""
        table = self.query_one("#sessions-table", DataTable)
        if self.page is None or not self.page.rows:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        if row_key.value is None:
            return None
        return next((r for r in self.page.rows if r.session_id == int(row_key.value)), None)

    def action_replay(self) -> None:
        row = self.cursor_session()
        if row is None:
            return
        from pxp_tui.app.review.replay_screen import ReplayScreen

        self.app.push_screen(ReplayScreen(self.board, row.session_id))

    def action_back(self) -> None:
        leave(self)  # its reads stop first


def _read(board: Blackboard, run_id: int, query: review.Query) -> tuple[RunSummary, review.Page, int]:
    """The run's line, the page of its sessions asked for, and how many sessions were skipped (on the reader's thread)."""
    return review.runs_row(board, run_id), review.sessions(board, run_id, query), notes.skipped(board, run_id)
