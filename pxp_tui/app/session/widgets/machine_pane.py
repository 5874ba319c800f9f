"""The machine's latest message: tag, prediction, explanation (verbatim, as sent), model, latency and cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.session.widgets.thinking import Thinking
from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.tags import tag_content
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible
from pxp_tui.engine import Message


def latency_text(latency_ms: float) -> str:
    return f"{latency_ms / 1000:.1f} s" if latency_ms >= 100 else f"{latency_ms:.0f} ms"


def cost_text(meta: Mapping[str, Any]) -> str:
    """``model · 1.2 s · app +40 ms · $0.0031 · 812+140 tokens``, from what the message recorded.

    The latency is the model's own time (its calls, measured by the agent); ``app +...`` the time the
    app spent around those calls (litellm, a thread, a busy loop), when the message was just made.
    """
    model = meta.get("model")
    parts = [model_label(str(model)) if model else "unknown model"]
    if meta.get("latency_ms") is not None:
        parts.append(latency_text(float(meta["latency_ms"])))
    if meta.get("overhead_ms") is not None:
        parts.append(f"app +{latency_text(float(meta['overhead_ms']))}")
    if meta.get("cost") is not None:
        parts.append(f"${float(meta['cost']):.4f}")
    prompt, completion = meta.get("prompt_tokens"), meta.get("completion_tokens")
    if prompt is not None or completion is not None:
        parts.append(f"{prompt or 0}+{completion or 0} tokens")
    return " · ".join(parts)


class MachinePane(Vertical):
    """What the machine said last, readable while the expert answers."""

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Machine"

    def __init__(self, prediction_label: str = "Prediction", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prediction_label = prediction_label
        self.message: Message | None = None

    def compose(self) -> ComposeResult:
        yield Static("waiting for the machine's first message", id="machine-head")
        yield Thinking(id="machine-thinking")
        with VerticalScroll(id="machine-body"):
            yield Static(id="machine-prediction")
            yield Static(id="machine-explanation")  # not Markdown: `[N+](=O)` in a SMILES would become a link
        yield Static(id="machine-meta")

    def show(self, message: Message) -> None:
        self.message = message
        self.query_one(Thinking).stop()
        self.query_one("#machine-head", Static).update(Content.assemble(tag_content(message.tag), f"  message {message.j}"))
        self.query_one("#machine-prediction", Static).update(
            Content.assemble((f"{self.prediction_label}: ", "bold"), visible(message.prediction))
        )
        self.query_one("#machine-explanation", Static).update(Content(visible(message.explanation)))
        self.query_one("#machine-meta", Static).update(Content(visible(cost_text(message.meta), one_line=True)))
        self.query_one("#machine-body").scroll_home(animate=False)

    def clear(self, note: str) -> None:
        self.message = None
        self.query_one("#machine-head", Static).update(Content(visible(note)))
        for selector in ("#machine-prediction", "#machine-explanation", "#machine-meta"):
            self.query_one(selector, Static).update("")

    def thinking(self, label: str, hint: str = "") -> None:
        self.query_one(Thinking).start(label, hint)

    def idle(self) -> None:
        self.query_one(Thinking).stop()
