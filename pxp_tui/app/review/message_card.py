"""One recorded message in the replay: j, sender, tag, prediction, explanation, and what it cost."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from pxp_tui.app.review import glyphs
from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.distribution_bars import bars_content
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible
from pxp_tui.engine import Message

#: the distribution bars' width in a card: narrow enough for a card beside the picture at 80 columns
BAR_WIDTH = 10


def answer_time(ms: float) -> str:
    """``42 s``, ``3 min 05 s``: how long the expert took."""
    seconds = round(ms / 1000)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def heading(message: Message) -> Text:
    text = Text(f"j={message.j}  {message.sender.value:<7}  ", style="bold")
    text.append_text(glyphs.tag_label(message.tag))
    meta = message.meta
    extra = [visible(model_label(str(meta["model"])), one_line=True)] if meta.get("model") else []
    if meta.get("answer_ms") is not None:  # the live expert's time on this answer
        extra.append(f"answered in {answer_time(meta['answer_ms'])}")
    if meta.get("latency_ms") is not None:
        extra.append(f"{meta['latency_ms'] / 1000:.1f} s")
    if meta.get("cost"):
        extra.append(f"${meta['cost']:.4f}")
    if extra:
        text.append(" · " + " · ".join(extra), style="dim")
    return text


class MessageCard(Vertical):
    """A message as sent; the machine's and the human's sit on different sides (classes)."""

    DEFAULT_CSS = beside(__file__)

    def __init__(self, message: Message, matched: bool | None = None) -> None:
        super().__init__(classes=f"card {message.sender.value}")
        self.message = message
        self.matched = matched  # the prediction against the instance's reference (None: no reference)

    def compose(self) -> ComposeResult:
        m = self.message
        yield Static(heading(m), classes="card-heading")
        prediction = Text.assemble(("prediction  ", "dim"), visible(m.prediction) or "—")
        if self.matched is not None:
            prediction.append("  ✓ the reference" if self.matched else "  ✗ not the reference", style="bold")
        yield Static(prediction, classes="card-prediction")
        yield Static(visible(m.explanation) or "—", classes="card-explanation", markup=False)
        bars = bars_content(m.meta, BAR_WIDTH)  # its distribution (EVINCE's top-k answer), when it stated one
        if bars is not None:
            yield Static(bars, classes="card-distribution")
