"""A model failure: its cause, and the choice to retry or to continue with another model."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from pxp_tui.common.visible import visible


@dataclass(frozen=True)
class Recovery:
    """What the expert chose: ``retry``, or ``switch`` to ``model``."""

    choice: str
    model: str = ""


class FailureScreen(ModalScreen["Recovery | None"]):
    """Shows why the run stopped; dismisses with a :class:`Recovery`, or None to decide later."""

    CSS_PATH = "failure.tcss"
    # Retrying first, unless the failure says retrying will not help (the button marked -first): focused
    # as the screen is composed, never over a focus the expert has set already. The app's default
    # focused the model field first, where an `s` pressed at once "switched" to the model that failed.
    AUTO_FOCUS = ".-first"
    BINDINGS = [
        Binding("r", "retry", "Retry", id="failure.retry"),
        Binding("s", "switch", "Switch model", id="failure.switch"),
        Binding("escape", "later", "Close", id="failure.close"),
    ]

    def __init__(self, cause: str, model: str, retryable: bool = True) -> None:
        super().__init__()
        self.cause, self.model, self.retryable = cause, model, retryable

    def compose(self) -> ComposeResult:
        with Vertical(id="failure-box"):
            yield Static(Content.styled("The run stopped", "bold $error"), id="failure-title")
            yield Static(Content(visible(self.cause)), id="failure-cause")  # it may quote the model's reply
            note = "Nothing shown was lost; retrying continues at the next message."
            if not self.retryable:
                note += " Retrying the same model is unlikely to help."
            yield Static(Content.styled(note, "$text-muted"), id="failure-note")
            yield Label("Continue with the model:", id="failure-model-label")
            yield Input(
                visible(self.model, one_line=True), id="failure-model", placeholder="offline, gpt-4o-mini, ollama/llava, ..."
            )
            with Horizontal(id="failure-buttons"):
                retry_first = "-first" if self.retryable else ""
                yield Button("Retry (r)", id="failure-retry", variant="primary", classes=retry_first)
                yield Button("Switch model (s)", id="failure-switch", variant="warning", classes="" if retry_first else "-first")
                yield Button("Close (esc)", id="failure-close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"failure-retry": self.action_retry, "failure-switch": self.action_switch, "failure-close": self.action_later}[
            event.button.id or "failure-close"
        ]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._switch(event.value)

    def action_retry(self) -> None:
        self.dismiss(Recovery("retry"))

    def action_switch(self) -> None:
        field = self.query_one("#failure-model", Input)
        if not field.has_focus:
            self.set_focus(field)  # at once: a key right after goes to the field
            return
        self._switch(field.value)

    def _switch(self, model: str) -> None:
        if not model.strip():
            self.notify("give a model to switch to", severity="error")
            return
        self.dismiss(Recovery("switch", model.strip()))

    def action_later(self) -> None:
        self.dismiss(None)
