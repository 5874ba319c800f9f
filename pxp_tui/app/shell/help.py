"""Every key, from the bindings of the app, the screen below and its widgets."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from pxp_tui.app.shared.browser import PALETTE, named_key, served_keys
from pxp_tui.app.shell.keys import key_rows


class HelpScreen(ModalScreen[None]):
    """The keys of ``screen`` (and of the whole app), with where they apply and their binding ids."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,question_mark", "dismiss", "Close help", id="help.close")]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.below = screen

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            intro = getattr(self.below, "help_intro", None)  # a screen's own explanation (the start form's fields)
            if intro is not None:
                with VerticalScroll(id="help-intro"):
                    yield Static(Content(intro()))
            yield Static(f"Keys ({named_key(PALETTE)}: every command by name; escape closes)", id="help-title")
            yield DataTable(id="help-keys", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "does", "where", "id")
        for row in key_rows(self.app, self.below):
            table.add_row(row.keys, row.description, row.where, row.id or "")
        table.add_row(", ".join(served_keys(PALETTE).split(",")), "command palette", "everywhere", "app.palette")
        table.focus()
