"""The live session: the instance, the machine's answer, the conversation, the expert's answer, the metrics.

The engine runs in a worker on the app's loop (``runs.execute`` with a live expert); what it commits
arrives here as messages and only then is shown. Model calls are awaited, RDKit drawing runs in
threads: the screen never waits on either.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pxp_tui.app.picture.cache import prefetch_next
from pxp_tui.app.picture.instance_view import InstanceView, PictureActions, picture_bindings
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.session.draft_keeper import DraftKeeper
from pxp_tui.app.session.driver import RunDriver
from pxp_tui.app.session.early_keys import EarlyKeys, early_key_bindings
from pxp_tui.app.session.exchange import Exchange
from pxp_tui.app.session.failure import FailureScreen, Recovery
from pxp_tui.app.session.live_metrics import LiveMetrics
from pxp_tui.app.session.messages import HumanTurn, MessageRecorded, RunStopped, SessionEnded, SessionStarted, StopOutcome
from pxp_tui.app.session.outcome import SessionOutcome
from pxp_tui.app.session.quick_footer import QuickFooter
from pxp_tui.app.session.same_frame import SameFrame, in_one_frame
from pxp_tui.app.session.states import Seat, SessionState, allowed, move_seat, seat_may_move, transition
from pxp_tui.app.session.widgets.conversation import Conversation
from pxp_tui.app.session.widgets.machine_pane import MachinePane
from pxp_tui.app.session.widgets.metrics_pane import MetricsPane
from pxp_tui.app.session.widgets.outcome_banner import OutcomeBanner
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.app.session.widgets.tag_picker import Answer, TagPicker
from pxp_tui.app.shared.breakpoints import apply_breakpoints
from pxp_tui.app.shared.browser import CANCEL_CALL, PALETTE, SUBMIT, named_key, served_keys
from pxp_tui.app.shared.confirm import ConfirmScreen
from pxp_tui.app.shared.header import header
from pxp_tui.app.shared.host import host
from pxp_tui.app.shared.session_notes import SessionNotes, note_bindings, skip_binding
from pxp_tui.common.kinds import HumanKind
from pxp_tui.common.models import model_label
from pxp_tui.engine import RunStatus
from pxp_tui.protocol import Sender, StopReason, Tag

if TYPE_CHECKING:
    from pxp_tui.blackboard.records import Run

#: asked before the machine's pending call is cancelled
CANCEL_QUESTION = (
    "Cancel the machine's call? Nothing pending is written: the session stays where it is, and r continues it with a new call."
)
#: said before a RATIFY is sent over fields the expert edited
RATIFY_OVER_EDITS = (
    "RATIFY sends the machine's prediction and explanation as the machine wrote them: what you typed in the fields is not sent."
)


class SessionScreen(PictureActions, Screen):
    """One run, session after session, with a live expert or a watched human (the proxy).

    Its state is a :class:`~pxp_tui.app.session.states.SessionState`, moved only as ``states.TRANSITIONS``
    allows (:meth:`_set_state`), and who answers the human's turns a :class:`~pxp_tui.app.session.states.Seat`
    (:meth:`action_take_seat`). Its parts: :class:`~pxp_tui.app.session.early_keys.EarlyKeys` (keys pressed
    before the expert's turn), :class:`~pxp_tui.app.shared.session_notes.SessionNotes` (skip, flag, note),
    :class:`~pxp_tui.app.session.draft_keeper.DraftKeeper` (the unsent answer),
    :class:`~pxp_tui.app.session.same_frame.SameFrame` (what an event changes, painted in one frame); the
    picture's keys are ``PictureActions``.
    """

    CSS_PATH = "screen.tcss"
    ALLOW_IN_MAXIMIZED_VIEW = "Header, Footer"
    # Textual's screen repaints all of itself when these change: at every turn (the focus to the tags, the
    # header's "message j") that re-sent every cell of the screen to the terminal, the picture's included.
    # The focused widget restyles itself, and the header watches the titles: nothing else needs the repaint.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    sub_title: Reactive[str | None] = Reactive(None, compute=False, repaint=False)
    title: Reactive[str | None] = Reactive(None, compute=False, repaint=False)
    BINDINGS = [
        # not a priority binding: a tag key typed just before ctrl+s is handled first
        Binding(served_keys(SUBMIT), "send", "Send", id="session.send"),
        # not escape (it closes and goes back everywhere): asks first
        Binding(served_keys(CANCEL_CALL), "cancel_call", "Cancel machine call", id="session.cancel_call"),
        Binding("r", "retry", "Retry", id="session.retry"),
        Binding("p", "pause", "Pause / resume", id="session.pause"),
        Binding("t", "take_seat", "Take / hand back the seat", id="session.take"),
        Binding("m", "view('metrics')", "Metrics", id="session.metrics"),
        Binding("c", "view('conversation')", "Conversation", id="session.conversation"),
        Binding("s", "summary", "Run summary", id="session.summary"),
        # enter too: the focus is nowhere while an outcome is shown, so enter reaches the screen
        Binding("enter", "next_instance", "Next instance", id="session.next"),
        *picture_bindings("session"),
        *early_key_bindings(),
        skip_binding("session"),
        *note_bindings("session"),
    ]

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.state = SessionState.LOADING
        self.seat = Seat.EXPERT  # who answers the human's turns: set once the run is read
        self.stored_run: Run | None = None  # the run as the blackboard holds it
        self.pxp_task: Any = None
        self.board: Any = None
        self.driver: RunDriver | None = None
        self.exchange: Exchange | None = None
        self.metrics: LiveMetrics | None = None
        self.engine: Worker | None = None
        self.held: list[Any] = []  # what the engine reported while an outcome is on screen, shown after it
        #: the expert's answer sent at (session, j) and not yet stored: put back at that turn if the run stops first
        self.unsent: tuple[int, int, Answer] | None = None
        self.early_keys = EarlyKeys(self)
        self.notes = SessionNotes(self)
        self.drafts = DraftKeeper(self)  # the expert's unsent answer, kept as they type
        self.frame = SameFrame(self)  # what an event changes, painted in one frame
        self.flagged: set[int] = set()  # the run's sessions flagged for later (shown in the header)

    @property
    def answering(self) -> bool:
        """Whether it is the expert's turn."""
        return self.state is SessionState.HUMAN

    @property
    def watched(self) -> bool:
        """Whether the human's seat answers by itself (the proxy, a second machine): the expert watches."""
        return self.seat is Seat.WATCHED

    @property
    def joined(self) -> bool:
        """Whether the expert holds a second machine's seat (agents/relay.py)."""
        return self.seat is Seat.JOINED

    def compose(self) -> ComposeResult:
        apply_breakpoints(self)  # its layout from the first frame
        yield header()
        with Horizontal(id="session-panes"):
            with Vertical(id="session-left"):
                yield InstanceView(id="instance", full_screen_when_small=True)
                yield MachinePane(id="machine")
            with Vertical(id="session-middle"):
                yield Conversation(id="conversation")
                yield TagPicker(id="picker")
                yield OutcomeBanner(id="outcome")
            yield MetricsPane(id="metrics")
        yield QuickFooter()  # fitted to the width, updated in place at each turn

    _styled = False  # whether the screen has been shown once (its widgets styled as they mounted)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown for the first time: every widget was styled as it mounted, just now (the app's CSS holds this screen's),
        and Textual would style all of them again (some ninety) before the first message. Later, as Textual decides."""
        if not self._styled:
            self._styled = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        self.sub_title = f"run {self.run_id}"
        self.query_one(MachinePane).thinking("loading the machine and RDKit…")
        self.open_run()

    # -- opening and driving the run --------------------------------------------------------------
    @work(group="session-open", exclusive=True)
    async def open_run(self) -> None:
        await host(self.app).loaded()  # litellm, RDKit, the blackboard's modules: imported in a thread
        from pxp_tui.blackboard import BlackboardError
        from pxp_tui.runs.variants import task_of

        try:
            self.board = await host(self.app).blackboard()
            run, finished, skipped, kept, flagged = await host(self.app).read_board(_run_and_tags, self.run_id)
        except (BlackboardError, ValueError) as exc:  # no such run, not a blackboard: say so, no traceback
            self.query_one(MachinePane).idle()
            self.query_one(TagPicker).wait(f"Cannot open run {self.run_id}: {exc}")
            return
        if self.state is SessionState.LEAVING:  # the app closed while the run was read
            return
        self.stored_run = run
        if not run.config.human_kind.interactive:
            self.seat = Seat.WATCHED
        self.drafts.stored = kept
        self.flagged = flagged
        self.pxp_task = task_of(run.config, self.board, run.config.dataset or "")  # the run's wording and question
        self.metrics = LiveMetrics(run.config.n, len(run.plan), finished, skipped)
        label = self.pxp_task.prediction_label
        human = run.human
        self.query_one(MachinePane).prediction_label = label
        self.query_one(Conversation).prediction_label = label
        self.query_one(Conversation).human = human
        self.query_one(TagPicker).set_prediction_label(label)
        self.query_one(OutcomeBanner).prediction_label = label
        self.set_class(self.watched, "-watched")
        self.query_one(MetricsPane).refresh_metrics(self.metrics)
        self.query_one(MetricsPane).show_session([])
        self._title()
        if run.finished:
            self._finished()
            return
        self.drive()

    def drive(self) -> None:
        """Run (or resume) the run in a worker; it continues at the next message."""
        if self.board is None or self.state is SessionState.LEAVING or (self.engine is not None and self.engine.is_running):
            return
        human = self.stored_run.human if self.stored_run is not None else "expert"
        self.driver = RunDriver(self.board, self.run_id, self, human)
        self.driver.human.joined = self.joined
        self._set_state(SessionState.MACHINE)
        self.engine = self.run_worker(self.driver.drive(), group="engine", exclusive=True, exit_on_error=False)

    async def stop_engine(self, reason: str | None = None) -> None:
        """Cancel the engine (a pending model call is dropped, nothing half-written) and wait for it.

        The run is then ``paused``, with ``reason`` (why the app is closing) if given.
        """
        if self.state is not SessionState.LEAVING:
            self._set_state(SessionState.LEAVING)
        await asyncio.to_thread(self.drafts.flush)  # what the expert typed last, before the app goes
        engine = self.engine
        if engine is not None and engine.is_running:
            engine.cancel()
            with contextlib.suppress(Exception):  # cancelled or failed: either way it has stopped
                await engine.wait()
            if reason and self.board is not None:  # in a thread: the write may wait its turn for the file
                await asyncio.to_thread(_pause, self.board, self.run_id, reason)

    # -- what the engine reports (committed before it arrives here) --------------------------------
    @in_one_frame
    def on_session_started(self, event: SessionStarted) -> None:
        if self._hold(event):
            return
        self.exchange = Exchange(event.session_id, event.instance, event.order, event.total, *self._bounds())
        self.query_one(Conversation).clear()
        self.query_one(MachinePane).clear("waiting for the machine's first message")
        self.query_one(InstanceView).show(self.pxp_task, event.instance)
        self.query_one(TagPicker).clear()  # nothing of the last session's answer
        self.query_one(MetricsPane).show_session([])
        for message in event.history:  # a resumed session's earlier messages: an open session, none stopped it
            self._show(message, None)
        self._after_message()

    def _bounds(self) -> tuple[int, int]:
        """The run's message bound ``n`` and REJECT's bound ``k``."""
        assert self.stored_run is not None  # the engine runs once the run is read
        return self.stored_run.config.n, self.stored_run.config.k

    @in_one_frame
    def on_message_recorded(self, event: MessageRecorded) -> None:
        if self._hold(event):
            return
        if self.exchange is None or event.message.session_id != self.exchange.session_id:
            return
        self._show(event.message, event.stop_reason)
        self._after_message()

    def _show(self, message: Any, stop: StopReason | None) -> None:
        """``message`` in the panes, and the engine's decision on it (``stop``) in the open session."""
        assert self.exchange is not None
        if self.unsent is not None and self.unsent[:2] == (message.session_id, message.j):
            self.unsent = None  # stored: nothing to put back
        if message.sender is Sender.HUMAN:
            self.drafts.turn_over()  # stored: its draft is gone with it
        if message.j <= len(self.exchange.messages):
            return
        self.exchange.add(message, stop)
        self.query_one(Conversation).add(message)
        if message.sender is Sender.MACHINE:
            self.query_one(MachinePane).show(message)
            self.query_one(InstanceView).show_prediction(message.prediction, "the machine's proposal")
        self.query_one(MetricsPane).show_session(self.exchange.tags())
        self.query_one(MetricsPane).show_information(
            self.exchange.messages, self.stored_run.label_order if self.stored_run else None
        )

    def _after_message(self) -> None:
        assert self.exchange is not None
        nxt = self.exchange.next_sender
        if nxt is Sender.MACHINE:
            self._set_state(SessionState.MACHINE)
        elif nxt is Sender.HUMAN and self.watched and self.stored_run is not None:
            self._set_state(SessionState.MACHINE, f"{self.stored_run.config.human_kind.phrase} is answering…")
        elif nxt is Sender.HUMAN:
            self.query_one(MachinePane).idle()
        self._title()

    @in_one_frame
    def on_session_ended(self, event: SessionEnded) -> None:
        if self._hold(event):
            return
        record = event.record
        if self.metrics is not None:
            if record.stop is StopReason.SKIPPED:  # a skipped session is measured nowhere
                self.metrics.skipped += 1
            else:
                self.metrics.add([(m.sender, m.tag) for m in record.messages])
            self.query_one(MetricsPane).refresh_metrics(self.metrics)
        stop = record.stop.value if record.stop else "stopped"
        self.query_one(Conversation).note(f"session {record.order + 1} ended: {stop}")
        skipped = record.stop is StopReason.SKIPPED  # the expert chose to move on: no outcome to read
        if not self.watched and not skipped and self.exchange is not None and self.stored_run is not None:
            ex = self.exchange
            outcome = SessionOutcome.of(ex.order, ex.total, ex.n, record.stop, record.messages, self.stored_run.human)
            self._show_outcome(outcome)

    # -- the outcome of a session, until the expert moves on --------------------------------------
    def _show_outcome(self, outcome: SessionOutcome) -> None:
        """Keep ``outcome`` (and the session's view) on screen; what the engine reports meanwhile waits."""
        self.query_one(TagPicker).wait("")  # hidden behind the outcome
        self.query_one(OutcomeBanner).show(outcome)
        self._outcome_shown(True)
        self.set_focus(None)  # the answer's keys off (enter moves on)
        self._set_state(SessionState.OUTCOME)

    def _outcome_shown(self, shown: bool) -> None:
        """The outcome in the answer's place, or back. ``display`` on the two widgets, not a class on the screen:
        a screen's class restyles every widget of the screen (hundreds, twice a session)."""
        self.query_one(OutcomeBanner).display = shown
        self.query_one(TagPicker).display = not shown

    def _hold(self, event: Any) -> bool:
        """While an outcome is on screen, keep ``event`` for later (True); else False: handle it now."""
        if self.state is SessionState.LEAVING:
            return True  # the app closes: nothing the engine reports is shown
        if self.state is not SessionState.OUTCOME:
            return False
        self.held.append(event)
        if isinstance(event, MessageRecorded) and event.message.sender is Sender.MACHINE:
            # the next session's proposal: its picture drawn now, shown at once when the expert moves on
            started = [e for e in self.held if isinstance(e, SessionStarted)]
            if started and started[-1].session_id == event.message.session_id:
                self.query_one(InstanceView).draw_ahead(self.pxp_task, started[-1].instance, event.message.prediction)
        return True

    @in_one_frame
    def action_next_instance(self) -> None:
        """Leave the outcome: the next session's view (or the run's end), as the engine reported it meanwhile."""
        if self.state is not SessionState.OUTCOME:
            return
        self._outcome_shown(False)
        self._set_state(SessionState.MACHINE)  # the expert moved on; what the engine reported meanwhile follows
        held, self.held = self.held, []
        handlers: dict[type, Callable[[Any], None]] = {
            SessionStarted: self.on_session_started,
            MessageRecorded: self.on_message_recorded,
            HumanTurn: self.on_human_turn,
            SessionEnded: self.on_session_ended,
            RunStopped: self.on_run_stopped,
        }
        for event in held:
            handlers[type(event)](event)

    @in_one_frame
    def on_human_turn(self, event: HumanTurn) -> None:
        if self._hold(event):
            return
        turn, machine = event.turn, event.turn.other_last
        if machine is None:  # pragma: no cover - the expert never speaks first
            return
        picker = self.query_one(TagPicker)
        picker.prepare(self.pxp_task, turn.instance, turn.j, turn.n, turn.k, machine, turn.own_last)
        self.drafts.turn_over()
        if self.unsent is not None and self.unsent[:2] == (turn.session_id, turn.j):
            picker.restore(self.unsent[2])  # sent before the run stopped, never stored: as typed
        elif (draft := self.drafts.restore(turn.session_id, turn.j)) is not None:
            picker.restore(draft, draft=True)  # typed before the app closed: as the expert left it
            self.notify("Your unsent answer is back as you left it.", timeout=4)
        self._set_state(SessionState.HUMAN)  # after the focus moved to the answer: the footer shows its keys now
        if self.driver is not None:
            self.driver.human.turn_shown()  # the time per answer counts from here
        self._title()
        if self.exchange is not None and self.stored_run is not None:  # the next instance's picture, drawn meanwhile
            picture = self.query_one("#instance-picture", Picture)
            prefetch_next(picture, self.pxp_task, self.stored_run.plan, self.exchange.order)

    @in_one_frame
    def on_run_stopped(self, event: RunStopped) -> None:
        if self._hold(event):
            return
        if event.outcome is StopOutcome.DONE:
            self._finished()  # and its summary
        elif event.outcome is StopOutcome.CANCELLED:
            self._stopped("Cancelled: nothing pending was written. Press r to continue.")
        else:
            self._stopped(f"Stopped: {event.cause}. Press r to retry.")
            model = self.stored_run.config.model if self.stored_run is not None else ""
            self.app.push_screen(FailureScreen(event.cause, model, event.retryable), self._recover)

    def _recover(self, recovery: Recovery | None) -> None:
        if recovery is None:
            return
        if recovery.choice == "switch":
            self.switch_model(recovery.model)
        else:
            self.drive()

    @work(group="session-switch", exclusive=True)
    async def switch_model(self, model: str) -> None:
        from pxp_tui.blackboard import BlackboardError
        from pxp_tui.runs.execute import switch_model

        try:
            await asyncio.to_thread(switch_model, self.board, self.run_id, model)
        except (ValueError, BlackboardError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.stored_run = await asyncio.to_thread(self.board.run, self.run_id)
        self.notify(f"Continuing with {model}.", markup=False)
        self._title()
        self.drive()

    # -- the expert's message ---------------------------------------------------------------------
    def on_tag_picker_send(self, event: TagPicker.Send) -> None:
        self.send(event.answer)

    def on_tag_picker_edited(self, event: TagPicker.Edited) -> None:
        if self.state is SessionState.HUMAN:
            self.drafts.changed(event.answer)

    def on_tag_choice_refused(self, event: TagChoice.Refused) -> None:
        self.notify(event.reason, severity="warning")

    def send(self, answer: Answer) -> None:
        if self.state is not SessionState.HUMAN or self.driver is None:
            self.notify("It is not your turn.", severity="warning")
            return
        if answer.tag is None:
            self.notify("Choose a tag first (1-4).", severity="warning")
            return
        problem = self.driver.human.check(answer.tag, answer.prediction, answer.explanation)
        problem = problem or self.pxp_task.validate_prediction(answer.prediction)
        if problem:
            self.notify(problem, severity="error", markup=False)  # it may quote a SMILES
            return
        # one question for everything that deserves one: RATIFY over edited fields, REVISE unchanged, a tag the
        # guards contradict, REJECT
        picker = self.query_one(TagPicker)
        questions = picker.doubts(answer)
        if answer.tag is Tag.RATIFY and picker.edited():
            questions.insert(0, RATIFY_OVER_EDITS)
        if answer.tag is Tag.REJECT:
            questions.append("Send REJECT? It ends this session without agreement.")
        elif questions:
            questions.append("Send it anyway?")
        if questions:

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self._submit(answer)

            yes = "Reject" if answer.tag is Tag.REJECT else "Send"
            self.app.push_screen(ConfirmScreen("\n".join(questions), yes=yes), confirmed)
            return
        self._submit(answer)

    @in_one_frame
    def _submit(self, answer: Answer) -> None:
        if self.state is not SessionState.HUMAN or self.driver is None or answer.tag is None:
            return
        self.driver.human.submit(answer.tag, answer.prediction, answer.explanation, answer.guards)
        typed = self.query_one(TagPicker).typed()
        self.drafts.sent(typed)  # kept until the message is stored
        if self.exchange is not None:
            self.unsent = (self.exchange.session_id, self.exchange.next_j, typed)
        self._set_state(SessionState.MACHINE, "sending…")

    # -- states -----------------------------------------------------------------------------------
    def _set_state(self, state: SessionState, note: str | None = None) -> None:
        """Enter ``state`` (``RefusedTransitionError`` if the states do not go there from the current one), show
        it, and the keys it offers (the footer's, in the same frame)."""
        self.state = transition(self.state, state)
        machine = self.query_one(MachinePane)
        if state is SessionState.MACHINE:
            model = model_label(self.stored_run.config.model) if self.stored_run is not None else "the machine"
            cancels = f"{named_key(CANCEL_CALL)} cancels" if allowed("cancel_call", state, self.seat) else ""
            machine.thinking(note or f"{model} is thinking…", cancels)
            self.query_one(TagPicker).wait("waiting for the machine")
        elif state in (SessionState.HUMAN, SessionState.OUTCOME):
            machine.idle()
        self.refresh_bindings()

    def _stopped(self, note: str) -> None:
        self.query_one(MachinePane).idle()
        self.query_one(TagPicker).wait(note)
        self.query_one(Conversation).note(note)
        self._set_state(SessionState.STOPPED)

    def _finished(self) -> None:
        self.query_one(MachinePane).idle()
        self.query_one(TagPicker).wait(
            f"The run is finished. s shows its summary; q quits; {named_key(PALETTE)}, New run starts another."
        )
        self._set_state(SessionState.DONE)
        self._title()
        if self.app.screen is self:
            self.action_summary()

    def _title(self) -> None:
        run, ex = self.stored_run, self.exchange
        if run is None:
            return
        parts = [f"run {self.run_id}", run.config.task.upper(), model_label(run.config.model)]
        if ex is not None:
            j = ex.next_j if ex.stop is None else len(ex.messages)
            parts += [f"session {ex.order + 1} of {ex.total}", f"message {j} of {ex.n}"]
            if ex.session_id in self.flagged:
                parts.append("⚑ flagged")
        else:
            done = self.metrics.done if self.metrics else 0
            parts += [f"{done} of {len(run.plan)} sessions done"]
        self.sub_title = " · ".join(parts)

    def flag_changed(self, session_id: int, flagged: bool) -> None:
        """Session ``session_id`` was flagged for later, or no longer is: the header says so."""
        if flagged:
            self.flagged.add(session_id)
        else:
            self.flagged.discard(session_id)
        self._title()

    def quit_warning(self) -> str | None:
        """Why quitting now deserves a question (mid-session), or None."""
        if self.exchange is not None and self.exchange.stop is None and self.state in (SessionState.MACHINE, SessionState.HUMAN):
            kept = "\nYour unsent answer is kept as a draft: it is back when you reopen the run." if self.drafts.kept else ""
            return (
                "This session is not finished. Quit anyway?\n"
                f"Every message shown is saved; reopening the run continues at the next message.{kept}"
            )
        return None

    # -- keys -------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        applies = allowed(action, self.state, self.seat)  # the actions of states.ACTIONS
        if action == "send":  # before the expert's turn it says to wait (early_keys); past a session's end, not offered
            return True if applies else (False if self.state in (SessionState.OUTCOME, SessionState.DONE) else None)
        if applies is not None:
            return applies
        if action == "annotate":
            return self.exchange is not None
        if action == "take_seat":  # a second machine's seat; handed back only between the expert's turns
            machines = self.stored_run is not None and self.stored_run.config.human_kind is HumanKind.MODEL
            return machines and seat_may_move(self.seat, self.state)
        return self.state is not SessionState.LEAVING

    def action_early_tag(self, index: int) -> None:
        self.early_keys.tag(index)

    def wait_for_turn(self) -> None:
        self.early_keys.wait_for_turn()

    def action_skip(self) -> None:
        """Ask, then skip this instance: the session ends, nothing of the expert's is sent."""
        self.notes.skip()

    def action_annotate(self, flag: bool) -> None:
        """Open the note of the session on screen; ``flag`` ticks "flagged for later" first."""
        self.notes.annotate(flag)

    def action_take_seat(self) -> None:
        """Step in as the human at the next turn of the other machine's seat, or hand the seat back to it."""
        self.seat = move_seat(self.seat, self.state)
        if self.driver is not None:
            self.driver.human.joined = self.joined
        self.set_class(self.watched, "-watched")
        self.notify("You answer from the next turn of the human's seat." if self.joined else "The other model answers again.")
        self.refresh_bindings()

    def action_send(self) -> None:
        if self.state is SessionState.HUMAN:
            self.query_one(TagPicker).request_send()
        else:
            self.wait_for_turn()

    def action_summary(self) -> None:
        """The run's summary screen (the papers' table, time spent, what next); escape comes back here."""
        from pxp_tui.app.session.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.run_id, getattr(self.app, "db_path", "sessions.db")))

    def action_cancel_call(self) -> None:
        """Ask, then cancel the machine's pending call: nothing pending is written, r continues."""
        if not self._calling():
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if self._calling():
                assert self.engine is not None
                self.engine.cancel()
            else:
                self.notify("The machine answered meanwhile: nothing was cancelled.", timeout=4)

        self.app.push_screen(ConfirmScreen(CANCEL_QUESTION, yes="Cancel the call", no="Keep waiting"), confirmed)

    def _calling(self) -> bool:
        """Whether the machine's call is pending (the engine runs, the screen waits for the machine)."""
        return self.state is SessionState.MACHINE and self.engine is not None and self.engine.is_running

    def action_retry(self) -> None:
        if self.state is SessionState.STOPPED:
            self.drive()

    def action_pause(self) -> None:
        if self.state is SessionState.STOPPED:
            self.drive()
        elif self.engine is not None and self.engine.is_running:
            self.engine.cancel()

    def action_view(self, pane: str) -> None:
        """Show one pane on the whole screen (the metrics, the conversation), or go back."""
        widget = self.query_one(f"#{pane}")
        if self.maximized is widget:
            self.minimize()
            if self.state is SessionState.HUMAN:
                self.query_one(TagChoice).focus()
        else:
            self.maximize(widget, container=False)
            if widget.can_focus:
                widget.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.engine and event.state is WorkerState.ERROR and self.state is not SessionState.LEAVING:
            self._stopped(f"Stopped: {event.worker.error}. Press r to retry.")


def _pause(board: Any, run_id: int, reason: str) -> None:
    """Run ``run_id`` paused with ``reason``, unless it is finished."""
    if not board.run(run_id).finished:
        board.set_status(run_id, RunStatus.PAUSED, reason)


def _run_and_tags(board: Any, run_id: int) -> tuple[Run, list[Any], int, dict[tuple[int, int], Any], set[int]]:
    """The run's row, its finished sessions' tags, how many were skipped, the expert's unsent answers and the sessions
    flagged for later (read in a thread)."""
    from pxp_tui.blackboard import drafts
    from pxp_tui.blackboard.metrics import session_tags
    from pxp_tui.blackboard.notes import flagged, skipped

    run = board.run(run_id)
    return run, session_tags(board, run_id), skipped(board, run_id), drafts.of_run(board, run_id), flagged(board, run_id)
