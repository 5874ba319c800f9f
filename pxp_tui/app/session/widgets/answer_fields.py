"""The expert's answer fields: the prediction (typed, or picked from the task's labels) and the explanation.

Editing keys are the usual ones of text fields: ctrl+a selects all (home goes to the line's start),
ctrl+z / ctrl+y undo and redo, ctrl+x / ctrl+c / ctrl+v cut, copy and paste, shift with the arrows
selects. They are declared here, with ids, so that the help lists them. Escape leaves any field for
the tag list (:class:`~pxp_tui.app.session.widgets.tag_picker.TagPicker` binds it).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.events import Key
from textual.message import Message
from textual.widgets import Input, OptionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Selection

from pxp_tui.app.shared.browser import DELETE_WORD, served_keys
from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.visible_text import VisiblePaste


class PredictionInput(VisiblePaste, Input):
    """The prediction, as text; ``ctrl+a`` selects it all."""

    keys_where = "prediction field"  # where the help lists its keys
    BINDINGS = [
        Binding("ctrl+a", "select_all", "Select all", id="prediction.select_all", show=False),
        Binding("down", "step_label(1)", "Next label", id="prediction.next_label", show=False),
        Binding("up", "step_label(-1)", "Previous label", id="prediction.previous_label", show=False),
    ]

    @dataclass
    class Step(Message):
        """Up or down in the field: move through the task's labels (where it has them)."""

        step: int

    def focus_typing(self) -> None:
        """The focus, for a character typed in the condition list: the text not selected, so that it is added to."""
        self.select_on_focus = False
        self.focus()

    def on_blur(self) -> None:
        self.select_on_focus = True

    def action_step_label(self, step: int) -> None:
        self.post_message(self.Step(step))


class ExplanationArea(VisiblePaste, TextArea):
    """The explanation, a paragraph editor that takes the room the answer pane has.

    At the first focus of a turn (while it still holds the prefilled text) its text is selected, so
    that typing replaces it and an arrow key keeps it.
    """

    keys_where = "explanation field"
    BINDINGS = [
        Binding("ctrl+a,f7", "select_all", "Select all", id="explanation.select_all", show=False),
        Binding("ctrl+z", "undo", "Undo", id="explanation.undo", show=False),
        Binding("ctrl+y", "redo", "Redo", id="explanation.redo", show=False),
        Binding("ctrl+x", "cut", "Cut", id="explanation.cut", show=False),
        Binding("ctrl+c", "copy", "Copy", id="explanation.copy", show=False),
        Binding("ctrl+v", "paste", "Paste", id="explanation.paste", show=False),
        Binding(served_keys(DELETE_WORD), "delete_word_left", "Delete the word before", id="explanation.delete_word", show=False),
        Binding("ctrl+u", "delete_to_start_of_line", "Delete to the line's start", id="explanation.delete_start", show=False),
        Binding(
            "ctrl+k", "delete_to_end_of_line_or_delete_line", "Delete to the line's end", id="explanation.delete_end", show=False
        ),
        Binding("home", "cursor_line_start", "Line start", id="explanation.home", show=False),
        Binding("end,ctrl+e", "cursor_line_end", "Line end", id="explanation.end", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False)
        self.start = ""
        self.fresh = False  # not focused since the turn began

    def prefill(self, text: str) -> None:
        """Start a turn with ``text`` (selected at the field's first focus, if still unchanged)."""
        if self.text != text:
            self.text = text
        else:  # the same text (REFUTE keeps it): not loaded again, nor re-rendered; the last turn's undo goes
            self.history.clear()
            if self.selection != Selection.cursor((0, 0)):  # moving the cursor re-renders the field
                self.move_cursor((0, 0))
        self.start = text
        self.fresh = True

    def on_focus(self) -> None:
        if self.fresh and self.text == self.start:
            self.select_all()
        self.fresh = False


def _filtered(labels: tuple[str, ...], typed: str) -> list[str]:
    """The labels containing ``typed`` (case and spacing ignored); all of them if it is empty or a label."""
    key = " ".join(typed.lower().split())
    if not key or any(key == label.lower() for label in labels):
        return list(labels)
    return [label for label in labels if key in label.lower()]


class LabelList(OptionList):
    """The task's labels (RAD's five conditions), filtered by what is typed in the prediction field.

    Picking one (enter, a click, or up/down from the field and enter) puts it in the field: the
    prediction is chosen, not spelt. A character typed while the list has the focus goes to the field
    (it filters the list), never to a shortcut: typing "pneu" here is typing, as in the field.
    """

    takes_typing = True  # a list that filters by typing: single-key shortcuts never fire on it (shell/keymap.py)

    DEFAULT_CSS = beside(__file__)

    @dataclass
    class Picked(Message):
        """The expert picked ``label``."""

        label: str

    @dataclass
    class Typed(Message):
        """A character typed while the list had the focus: it belongs in the prediction field."""

        character: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: tuple[str, ...] = ()
        self.current = ""
        self._shown: tuple[tuple[str, ...], str] | None = None  # the labels and the text the options were built for

    def set_labels(self, labels: tuple[str, ...], typed: str = "") -> None:
        self.labels = labels
        self.display = bool(labels)
        self.show_for(typed)

    def show_for(self, typed: str) -> None:
        """Show the labels that match ``typed``; the one it names (or the first) highlighted."""
        self.current = typed
        shown = _filtered(self.labels, typed)
        named = next((i for i, label in enumerate(shown) if label.lower() == typed.strip().lower()), 0)
        if self._shown == (self.labels, typed):  # built for these already (a turn that keeps the prediction)
            self.highlighted = named if shown else None
            return
        self._shown = (self.labels, typed)
        self.clear_options()
        for label in shown:
            chosen = label.lower() == typed.strip().lower()
            mark = Content.styled("●", "bold $accent") if chosen else Content.styled("○", "$text-muted")
            self.add_option(Option(Content.assemble(mark, " ", label), id=label))
        if not shown:
            self.add_option(Option(Content.styled(f"no label contains {typed.strip()!r}", "$text-muted"), disabled=True))
        self.highlighted = named if shown else None

    @property
    def only(self) -> str | None:
        """The label the typed text names or, if exactly one label matches it, that one."""
        shown = _filtered(self.labels, self.current)
        exact = [label for label in shown if label.lower() == self.current.strip().lower()]
        return exact[0] if exact else (shown[0] if len(shown) == 1 else None)

    @property
    def highlighted_label(self) -> str | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return option.id if not option.disabled else None

    def on_key(self, event: Key) -> None:
        if event.is_printable and event.character:
            event.stop()  # not up to the screen's shortcuts
            event.prevent_default()
            self.post_message(self.Typed(event.character))

    def move(self, step: int) -> None:
        """Move the highlight (up/down pressed in the prediction field)."""
        if self.option_count:
            self.action_cursor_down() if step > 0 else self.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Picked(event.option.id))
