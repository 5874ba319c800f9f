"""Every message of the session so far: ``j``, sender, the tag in its colour, prediction and explanation."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.distribution_bars import bars_content
from pxp_tui.app.shared.tags import tag_content
from pxp_tui.common.visible import visible
from pxp_tui.engine import Message


def message_content(message: Message, prediction_label: str = "Prediction", human: str = "human") -> Content:
    """One message: a heading line, then the prediction and the explanation; its distribution's bars, if any."""
    sender = "machine" if message.sender.value == "machine" else visible(human, one_line=True)
    bars = bars_content(message.meta)
    return Content.assemble(
        (f"{message.j:>2} ", "bold"),
        (f"{sender} ", "$text-muted"),
        tag_content(message.tag),
        "\n",
        (f"{prediction_label}: ", "bold"),
        visible(message.prediction),
        "\n",
        (visible(message.explanation), "$text-muted"),
        *(("\n", bars) if bars is not None else ()),
    )


class Conversation(VerticalScroll):
    """The session's messages, newest at the bottom (kept in view, until the expert scrolls up to read).

    Its entries stay mounted and are reused: a message fills the first spare one (hidden until then),
    and a new session hides them all again. Mounting a widget per message cost the reply's frame about
    10 ms of Textual's messages (the frame waits for what was mounted). A spare keeps the classes of
    what it showed last (messages alternate, so a slot usually shows the same sender's in the next
    session): shown again with the same classes it is not restyled, a stylesheet pass over the
    widget that cost the reply's frame about 2 ms a message at 160x48. More are mounted only when a
    session outgrows them.
    """

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Conversation"
    ALLOW_MAXIMIZE = True
    #: entries mounted in advance: a session of the default bound (10 messages) and its notes
    SPARE = 12

    def __init__(self, prediction_label: str = "Prediction", human: str = "human", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prediction_label = prediction_label
        self.human = human

    def compose(self) -> ComposeResult:
        for slot in range(self.SPARE):
            spare = Static("", classes="entry -machine" if slot % 2 == 0 else "entry -human")  # j = slot + 1
            spare.display = False
            yield spare

    def on_mount(self) -> None:
        self.anchor()  # kept at the newest message as entries fill, until the expert scrolls up

    @property
    def entries(self) -> list[Static]:
        """The messages and notes shown, in order (the spares left out)."""
        return [child for child in self.query_children(Static) if child.display]

    def add(self, message: Message) -> None:
        content = message_content(message, self.prediction_label, self.human)
        self._fill(content, f"entry -{message.sender.value}")

    def note(self, text: str) -> None:
        """A line between messages (a session that ended, a cancelled call)."""
        self._fill(Content(visible(text)), "note")  # plain text: a model error's brackets are no markup

    def clear(self) -> None:
        for child in self.query_children(Static):
            if child.display:
                child.update("")
                child.display = False
        self.anchor()  # a new session: back at its newest message

    def _fill(self, content: Content, classes: str) -> None:
        spare = next((child for child in self.query_children(Static) if not child.display), None)
        if spare is None:
            self.mount(Static(content, classes=classes))
        else:
            spare.update(content)
            if spare.classes != frozenset(classes.split()):
                spare.set_classes(classes)
            spare.display = True
