"""One session replayed message by message, with its instance drawn. Read-only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from pxp_tui.app.picture.instance_view import InstanceView, PictureActions, picture_bindings
from pxp_tui.app.review import glyphs
from pxp_tui.app.review.leaving import leave
from pxp_tui.app.review.message_card import BAR_WIDTH, MessageCard
from pxp_tui.app.review.reader import ReviewBoard
from pxp_tui.app.review.review_notes import replay_note
from pxp_tui.app.shared.distribution_bars import bars_content
from pxp_tui.app.shared.export_run import ExportsRun, export_binding
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.header import header
from pxp_tui.blackboard import Blackboard, review
from pxp_tui.blackboard.finals import FinalWeights
from pxp_tui.common.models import model_label
from pxp_tui.common.visible import visible
from pxp_tui.protocol import session_flags

if TYPE_CHECKING:
    from pxp_tui.tasks.base import Task


def final_card(session: Mapping[str, Any]) -> Static | None:
    """The session's final distribution (EVINCE's step 3) with how it weighs the agents; None without one."""
    weights = FinalWeights.read(session.get("final_weights"))
    bars = bars_content({"distribution": session.get("final_distribution")}, BAR_WIDTH)
    if weights is None or bars is None:
        return None
    title = Content.styled(visible("\n".join(weights.lines())), "bold")  # who weighed them: as stored
    return Static(Content("\n").join([title, bars]), id="replay-final")


class ReplayScreen(ExportsRun, PictureActions, Screen):
    """Session ``session_id``: the instance on the left, its messages revealed one at a time on the right."""

    CSS_PATH = "replay_screen.tcss"
    BINDINGS = [
        Binding("right,space", "step(1)", "Next message", id="review.replay.next"),
        Binding("left", "step(-1)", "Previous", id="review.replay.previous"),
        Binding("end,a", "show_all", "All", id="review.replay.all"),
        Binding("home", "show_first", "First", id="review.replay.first"),
        Binding("escape", "back", "Sessions", id="review.replay.back"),
        export_binding("review.replay"),
        *picture_bindings("review.replay"),
    ]

    shown: reactive[int] = reactive(0, init=False)

    def __init__(self, board: ReviewBoard, session_id: int) -> None:
        super().__init__()
        self.board = board
        self.session_id = session_id
        self.replay: review.Replay | None = None
        self.matches: list[bool | None] = []  # each message's prediction against the reference

    def export_target(self) -> tuple[Any, Path, int] | None:
        return None if self.replay is None else (self.board.read, self.board.path, self.replay.run.id)

    def compose(self) -> ComposeResult:
        yield header()
        yield Static("", id="replay-title")
        yield Static("", id="replay-note", markup=False)
        yield Horizontal(id="replay-body")
        yield Static("", id="replay-status")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.title = "PXP review"
        self.load()

    @work(exclusive=True, group="replay")
    async def load(self) -> None:
        replay, task, matches = await self.board.read(_read, self.session_id)
        if self in self.app.screen_stack:  # not closed while the read was on its way
            await self._show(replay, task, matches)

    async def _show(self, replay: review.Replay, task: Task, matches: list[bool | None]) -> None:
        self.replay = replay
        self.matches = matches
        run, session = replay.run, replay.session
        self.sub_title = f"run {run.id} · session {session['ord'] + 1}"
        self.query_one("#replay-title", Static).update(
            Content(  # the instance's name as stored (a SMILES is no markup), its control characters escaped
                visible(
                    f"Run {run.id} · {run.config.task.upper()} · session {session['ord'] + 1} of {len(run.plan)} · "
                    f"{replay.instance.name} · machine {model_label(run.config.model)} · human {run.human}",
                    one_line=True,
                )
            )
        )
        note = self.query_one("#replay-note", Static)
        note.update(replay_note(replay))
        note.display = bool(replay_note(replay))
        body = self.query_one("#replay-body", Horizontal)
        left = Vertical(InstanceView(task, replay.instance), reference_card(replay.instance), id="replay-instance")
        await body.mount_all([left, VerticalScroll(id="replay-messages")])
        self.shown = 1 if replay.messages else 0

    def watch_shown(self, shown: int) -> None:
        if self.replay is None:
            return
        pane = self.query_one("#replay-messages", VerticalScroll)
        cards = list(pane.query(MessageCard))
        for card in cards[shown:]:
            card.remove()
        new = [MessageCard(m, self.matches[m.j - 1]) for m in self.replay.messages[len(cards) : shown]]
        if new:
            pane.mount_all(new)
        for old in pane.query("#replay-final"):
            old.remove()
        if shown and shown == len(self.replay.messages):
            final = final_card(self.replay.session)
            if final is not None:
                pane.mount(final)
        pane.call_after_refresh(pane.scroll_end, animate=False)
        self.query_one("#replay-status", Static).update(Content(visible(self._status(shown), one_line=True)))
        if shown:  # what the latest message shown proposes (for DRUG, its reaction)
            latest = self.replay.messages[shown - 1]
            self.query_one(InstanceView).show_prediction(latest.prediction, f"message {latest.j}: {latest.sender.value}'s answer")

    def _status(self, shown: int) -> str:
        assert self.replay is not None
        messages = self.replay.messages
        text = f"message {shown} / {len(messages)}"
        if shown == len(messages):
            stop = self.replay.session["stop_reason"] or "not finished"
            flags = session_flags([(m.sender, m.tag) for m in messages])
            held = [name.replace("_", " ") for name, value in vars(flags).items() if value] or ["none"]
            text += f" · {stop} · intelligible: {', '.join(held)}"
        else:
            text += " · → next, End all"
        return text + "   " + glyphs.LEGEND

    def action_step(self, step: int) -> None:
        if self.replay is not None:
            self.shown = max(min(self.shown + step, len(self.replay.messages)), min(1, len(self.replay.messages)))

    def action_show_all(self) -> None:
        if self.replay is not None:
            self.shown = len(self.replay.messages)

    def action_show_first(self) -> None:
        if self.replay is not None and self.replay.messages:
            self.shown = 1

    def action_back(self) -> None:
        leave(self)  # its reads stop first


def reference_card(instance: Any) -> Static:
    """The dataset's reference answer (RAD's label and report, DRUG's reactants), as stored."""
    prediction, explanation = instance.reference_prediction, instance.reference_explanation
    if not prediction and not explanation:
        return Static(Content.styled("No reference answer in the dataset", "$text-muted"), id="replay-reference")
    lines = [Content.styled("Reference answer", "bold"), Content(visible(prediction or "—"))]
    if explanation:
        lines.append(Content.styled(visible(explanation), "$text-muted"))
    return Static(Content("\n").join(lines), id="replay-reference")


def _read(board: Blackboard, session_id: int) -> tuple[review.Replay, Task, list[bool | None]]:
    """The session replayed, its task, and whether each message's prediction is the reference (on the reader's thread)."""
    from pxp_tui.runs.variants import matching
    from pxp_tui.tasks import get_task

    replay = review.replay(board, session_id)
    # RDKit for DRUG: loaded here, off the UI loop; MATCH by the run's rule
    task = matching(get_task(replay.run.config.task), replay.run.config)
    reference = replay.instance.reference_prediction
    matches = [task.match(m.prediction, reference) if reference and m.prediction else None for m in replay.messages]
    return replay, task, matches
