"""The session filter: an intelligibility class or how the session ended, and a text to find."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Input, Select

from pxp_tui.app.review.messages import FilterChanged
from pxp_tui.app.shared.css import beside

#: filter key (see pxp_tui.blackboard.review.FILTERS) -> label
CLASS_LABELS: dict[str, str] = {
    "one_way_human": "1-way for the human",
    "one_way_machine": "1-way for the machine",
    "two_way": "2-way",
    "strong_human": "strong for the human",
    "strong_machine": "strong for the machine",
    "ultra_strong_human": "ultra-strong for the human",
    "ultra_strong_machine": "ultra-strong for the machine",
    "ratified": "ratified by both",
    "rejected": "rejected",
    "bound": "hit the bound",
    "unfinished": "unfinished",
    "skipped": "skipped by the expert",
    "flagged": "flagged for later",
    "noted": "with a note",
}


class FilterBar(Horizontal):
    """Posts :class:`FilterChanged` when the class or (after a short pause in typing) the text changes."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS = [
        Binding("escape", "clear", "Clear filter", id="review.filter.clear", show=False),
    ]
    DEBOUNCE = 0.25

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: Timer | None = None

    def compose(self) -> ComposeResult:
        options = [(label, key) for key, label in CLASS_LABELS.items()]
        yield Select(options, prompt="every session", allow_blank=True, id="filter-class")
        yield Input(placeholder="find in predictions and explanations", id="filter-text")

    @property
    def kind(self) -> str | None:
        value = self.query_one("#filter-class", Select).value
        return value if isinstance(value, str) else None

    @property
    def text(self) -> str:
        return self.query_one("#filter-text", Input).value

    def set_kind(self, kind: str | None) -> None:
        select = self.query_one("#filter-class", Select)
        if kind is None:
            select.clear()
        else:
            select.value = kind

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._post(chosen=True)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._pending is not None:
            self._pending.stop()
        self._pending = self.set_timer(self.DEBOUNCE, self._post)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._pending is not None:
            self._pending.stop()
        self._post()

    def action_clear(self) -> None:
        self.query_one("#filter-text", Input).value = ""
        self.set_kind(None)
        self._post()

    def _post(self, *, chosen: bool = False) -> None:
        self._pending = None
        self.post_message(FilterChanged(self.kind, self.text.strip(), chosen))
