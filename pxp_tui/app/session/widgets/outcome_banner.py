"""The outcome of the session that just stopped, kept on screen until the expert moves on.

How it ended (ratified by both, rejected by whom, the message bound), its last message as sent, and
its intelligibility flags (one-way, two-way, strong, ultra-strong, for the human and the machine).
``enter`` moves on to the next instance (or, after the last session, the run's summary).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.session.outcome import SessionOutcome
from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.tags import tag_content, tags_content
from pxp_tui.common.visible import visible
from pxp_tui.protocol import Sender

YES, NO = "✓", "·"


def _mark(value: bool | None) -> Content:
    if value is None:
        return Content("")
    return Content.styled(f"{YES:^7}", "bold $success") if value else Content.styled(f"{NO:^7}", "$text-muted")


def headline_content(outcome: SessionOutcome) -> Content:
    style = "bold $success" if outcome.agreed else "bold $warning"
    return Content.assemble(
        (f"Session {outcome.order + 1} of {outcome.total}: ", "bold"), (visible(outcome.headline, one_line=True), style)
    )


def last_message_content(outcome: SessionOutcome, prediction_label: str) -> Content:
    """The session's last message, its prediction and explanation exactly as sent."""
    last = outcome.last
    if last is None:
        return Content.styled("no message", "$text-muted")
    sender = "machine" if last.sender is Sender.MACHINE else visible(outcome.human, one_line=True)
    return Content.assemble(
        ("Last message: ", "bold"),
        f"{last.j} {sender} ",
        tag_content(last.tag),
        "\n",
        (f"{prediction_label}: ", "bold"),
        visible(last.prediction),
        "\n",
        visible(last.explanation),
    )


def flags_content(outcome: SessionOutcome) -> Content:
    """The session's intelligibility, one class a line, human and machine side by side."""
    lines = [Content.assemble((f"{'Intelligibility':<16}", "bold"), (f"{'human':^7}{'machine':^7}", "bold"))]
    for label, human, machine in outcome.flag_lines():
        if machine is None:  # two-way: one value for the pair
            lines.append(Content.assemble(f"{label:<16}", _mark(human), Content.styled(" (both)", "$text-muted")))
        else:
            lines.append(Content.assemble(f"{label:<16}", _mark(human), _mark(machine)))
    lines.append(Content.assemble("Tags: ", tags_content(outcome.tags())))
    return Content("\n").join(lines)


def keys_content(outcome: SessionOutcome) -> Content:
    nxt = "the run's summary" if outcome.is_last_session else "the next instance"
    return Content.assemble(("enter", "bold $accent"), f": {nxt}")


class OutcomeBanner(Vertical):
    """Shows one :class:`SessionOutcome`. Not focusable: enter, the session screen's key, moves on
    (moving the focus here restyled the banner and all it holds in the outcome's first frame)."""

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Session ended"

    def __init__(self, prediction_label: str = "Prediction", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prediction_label = prediction_label
        self.outcome: SessionOutcome | None = None

    def compose(self) -> ComposeResult:
        # few widgets: each one shown costs the outcome's first frame a layout, a style and a render
        yield Static(id="outcome-head")  # how it ended, and the way on (kept in view)
        with VerticalScroll(id="outcome-body"):
            yield Static(id="outcome-text")  # the flags, then the last message as sent

    def show(self, outcome: SessionOutcome) -> None:
        self.outcome = outcome
        self.set_class(outcome.agreed, "-agreed")
        self.border_title = f"Session {outcome.order + 1} ended"
        self.query_one("#outcome-head", Static).update(Content("\n").join([headline_content(outcome), keys_content(outcome)]))
        body = Content.assemble(flags_content(outcome), "\n\n", last_message_content(outcome, self.prediction_label))
        self.query_one("#outcome-text", Static).update(body)
        self.query_one("#outcome-body").scroll_home(animate=False)
