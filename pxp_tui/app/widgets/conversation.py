"""Every message of the session so far: ``j``, sender, the tag in its colour, prediction and explanation."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.css import beside
from pxp_tui.app.tags import tag_content
from pxp_tui.app.widgets.distribution_bars import bars_content
from pxp_tui.engine import Message


def message_content(message: Message, prediction_label: str = "Prediction", human: str = "human") -> Content:
    """One message: a heading line, then the prediction and the explanation; its distribution's bars, if any."""
    sender = "machine" if message.sender.value == "machine" else human
    bars = bars_content(message.meta)
    return Content.assemble(
        (f"{message.j:>2} ", "bold"),
        (f"{sender} ", "$text-muted"),
        tag_content(message.tag),
        "\n",
        (f"{prediction_label}: ", "bold"),
        message.prediction,
        "\n",
        (message.explanation, "$text-muted"),
        *(("\n", bars) if bars is not None else ()),
    )


class Conversation(VerticalScroll):
    """The session's messages, newest at the bottom (kept in view)."""

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Conversation"
    ALLOW_MAXIMIZE = True

    def __init__(self, prediction_label: str = "Prediction", human: str = "human", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prediction_label = prediction_label
        self.human = human

    def add(self, message: Message) -> None:
        entry = Static(message_content(message, self.prediction_label, self.human), classes=f"entry -{message.sender.value}")
        self.mount(entry)
        self.call_after_refresh(self.scroll_end, animate=False)

    def note(self, text: str) -> None:
        """A line between messages (a session that ended, a cancelled call)."""
        self.mount(Static(Content(text), classes="note"))  # plain text: a model error's brackets are no markup
        self.call_after_refresh(self.scroll_end, animate=False)

    def clear(self) -> None:
        self.remove_children()
