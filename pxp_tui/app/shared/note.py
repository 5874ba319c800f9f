"""A session's flag and note, written by the expert during the session or by a reviewer afterwards."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Static, TextArea

from pxp_tui.app.shared.browser import SUBMIT, named_key, served_keys
from pxp_tui.app.shared.visible_text import VisiblePaste
from pxp_tui.common.visible import visible

if TYPE_CHECKING:  # the blackboard's modules load after the first paint
    from pxp_tui.blackboard.notes import Annotation


class NoteArea(VisiblePaste, TextArea):
    """The note's text field."""


class NoteScreen(ModalScreen["Annotation | None"]):
    """Edit ``annotation``: "flagged for later" and a free-text note; ctrl+s saves it, escape leaves it as it was."""

    CSS_PATH = "note.tcss"
    AUTO_FOCUS = "#note-text"
    BINDINGS = [
        Binding(served_keys(SUBMIT), "save", "Save note", id="note.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
        Binding("ctrl+b", "toggle_flag", "Flag / unflag", id="note.flag", priority=True),
    ]

    def __init__(self, annotation: Annotation, heading: str) -> None:
        super().__init__()
        self.annotation = annotation
        self.heading = heading

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Static(visible(self.heading), id="note-heading", markup=False)
            yield Checkbox("Flagged for later (ctrl+b)", self.annotation.flagged, id="note-flag")
            yield NoteArea(visible(self.annotation.note), id="note-text", soft_wrap=True, show_line_numbers=False)
            with Horizontal(id="note-buttons"):
                yield Button(f"Save ({named_key(SUBMIT)})", id="note-save", variant="primary")
                yield Button("Cancel (esc)", id="note-cancel")

    def on_mount(self) -> None:
        self.query_one(TextArea).move_cursor(self.query_one(TextArea).document.end)

    def edited(self) -> Annotation:
        flagged, note = self.query_one("#note-flag", Checkbox).value, self.query_one(TextArea).text.strip()
        if note == visible(self.annotation.note).strip():  # not edited: the note as stored (the field shows its escapes)
            note = self.annotation.note
        return replace(self.annotation, flagged=flagged, note=note)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(self.edited() if event.button.id == "note-save" else None)

    def action_save(self) -> None:
        self.dismiss(self.edited())

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_toggle_flag(self) -> None:
        flag = self.query_one("#note-flag", Checkbox)
        flag.value = not flag.value
