"""Instrumentation for ``turn_latency.py``: the app's code wrapped from outside, in the measuring process.

Nothing here changes what the app does; :func:`install` replaces a few methods with timed wrappers
(class attributes, so that every instance is measured) and records:

- *spans*: (kind, start, end, on the main thread?, detail), for the commit, the model call through
  litellm and the model's own answer inside it, the checker, the drawing of pictures, textual-image's
  encoding, Textual's layout and render, the terminal write, the session screen's handlers;
- *stamps*: the moments a step reaches a milestone, keyed by (milestone, session id, j):
  ``send`` (the expert's message handed to the engine), ``commit`` (its row committed),
  ``reply`` (the machine's message ``j`` handled and painted: the first frame rendered once its
  handler and the machine pane's Markdown are done), ``turn`` (the expert's turn ``j`` open, the tag
  list focused, in a frame), ``ready`` (the same, with every picture of the instance drawn and
  rendered), ``outcome`` (a session's outcome on screen, keyed by (session id, 0)).

Frames are Textual's compositor refreshes of the session screen: a milestone's condition is checked
when a frame starts (what the frame will render) and stamped when it ends (after the terminal write,
in a real terminal). Clocks are ``time.perf_counter`` (CLOCK_MONOTONIC on Linux: comparable across
processes, which the tmux mode relies on).

The hooks name the app's methods and widgets (``SessionScreen.on_message_recorded``, ``Picture``,
``#machine-explanation``...): when those change, change :func:`install` and the checks with them.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

now = time.perf_counter


class Probe:
    """What :func:`install` records."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float, bool, Any]] = []
        self.stamps: dict[tuple[str, int, int], float] = {}
        self.cpu: dict[tuple[str, int, int], float] = {}  # the process's CPU time (all threads) at each stamp
        self.orders: dict[int, int] = {}  # session id -> its order in the run
        self.reply_visible: dict[tuple[int, int], bool] = {}  # still on screen in its first frame?
        self.shown_latency: dict[tuple[int, int], float] = {}  # latency_ms the machine pane shows
        self.pending_replies: list[tuple[int, int, Any, Any]] = []  # (session, j, the machine pane's text, message)
        self._armed: list[tuple[Any, ...]] = []  # checks true at the start of the current frame
        self.rendered: set[Any] = set()  # ids of the widgets rendered in the current frame
        self.painted: set[Any] = set()  # ... in the last frame rendered
        self.frames = 0  # frames of the session screen rendered so far
        self._events: dict[tuple[str, int, int], asyncio.Event] = {}
        self.listeners: list[Callable[[str, int, int], None]] = []  # called with each new stamp

    def reset(self) -> None:
        """Forget everything recorded (the hooks stay installed)."""
        listeners = self.listeners
        self.__init__()  # type: ignore[misc]
        self.listeners = listeners

    # -- recording ------------------------------------------------------------------------------------
    def span(self, kind: str, start: float, end: float, detail: Any = None) -> None:
        self.spans.append((kind, start, end, threading.current_thread() is threading.main_thread(), detail))

    def stamp(self, name: str, session: int, j: int, t: float | None = None) -> None:
        key = (name, session, j)
        if key not in self.stamps:
            self.stamps[key] = now() if t is None else t
            self.cpu[key] = time.process_time()
            event = self._events.get(key)
            if event is not None:
                event.set()
            for listener in self.listeners:
                listener(name, session, j)

    async def wait(self, name: str, session: int, j: int, timeout: float = 60.0) -> float:
        """Wait (on the app's loop, without forcing frames) until a stamp exists; returns its time."""
        key = (name, session, j)
        if key not in self.stamps:
            event = self._events.setdefault(key, asyncio.Event())
            await asyncio.wait_for(event.wait(), timeout)
        return self.stamps[key]

    def session_of(self, order: int) -> int | None:
        return next((s for s, o in self.orders.items() if o == order), None)

    # -- frames ---------------------------------------------------------------------------------------
    def frame_start(self, screen: Any) -> None:
        """What the frame about to be rendered may show: replies handled, an outcome, an open turn. Each is
        stamped at the frame's end only if its widget was rendered in the frame (:meth:`frame_end`): a
        change Textual has not yet laid out is not on the screen, whatever the app's state says."""
        self._armed = []
        self.rendered = set()
        for pending in list(self.pending_replies):
            session, j, text, message = pending
            self._armed.append(("reply", session, j, text, message))
        ended = _outcome_shown(screen)
        if ended is not None and ("outcome", ended, 0) not in self.stamps:
            self._armed.append(("outcome", ended, 0, _query(screen, "#outcome")))
        turn = _open_turn(screen)
        if turn is not None and ("turn", *turn) not in self.stamps:
            self._armed.append(("turn", *turn, screen.app.focused))
        if turn is not None and ("ready", *turn) not in self.stamps:
            images = _pictures_shown(screen)
            if images is not None:
                self._armed.append(("ready", *turn, images))

    def frame_end(self, screen: Any) -> None:
        t = now()
        for armed in self._armed:
            if armed[0] == "reply":
                _, session, j, text, message = armed
                if text is not None and id(text) not in self.rendered:
                    continue  # handled, not yet painted: a later frame
                self.pending_replies.remove((session, j, text, message))
                self.stamp("reply", session, j, t)
                pane = _query(screen, "#machine")
                self.reply_visible[(session, j)] = getattr(pane, "message", None) is message
            elif armed[0] in ("turn", "outcome"):
                if id(armed[3]) in self.rendered:
                    self.stamp(armed[0], armed[1], armed[2], t)
            elif all(_rendered(image) for image in armed[3]):
                self.stamp("ready", armed[1], armed[2], t)
        self._armed = []
        self.painted, self.frames = self.rendered, self.frames + 1

    def widget_rendered(self, widget: Any) -> None:
        """``widget`` rendered (its ``render_lines``) in the frame being rendered."""
        self.rendered.add(id(widget))

    # -- saving (the tmux mode's child process) ---------------------------------------------------------
    def dump(self, path: Path) -> None:
        data = {
            "spans": [[k, s, e, m, _plain(d)] for k, s, e, m, d in self.spans],
            "stamps": [[*key, t] for key, t in self.stamps.items()],
            "cpu": [[*key, t] for key, t in self.cpu.items()],
            "orders": [[s, o] for s, o in self.orders.items()],
            "reply_visible": [[s, j, v] for (s, j), v in self.reply_visible.items()],
            "shown_latency": [[s, j, v] for (s, j), v in self.shown_latency.items()],
        }
        path.write_text(json.dumps(data))

    @classmethod
    def load(cls, path: Path) -> Probe:
        data = json.loads(path.read_text())
        probe = cls()
        probe.spans = [(k, s, e, m, tuple(d) if isinstance(d, list) else d) for k, s, e, m, d in data["spans"]]
        probe.stamps = {(n, s, j): t for n, s, j, t in data["stamps"]}
        probe.cpu = {(n, s, j): t for n, s, j, t in data["cpu"]}
        probe.orders = {s: o for s, o in data["orders"]}
        probe.reply_visible = {(s, j): v for s, j, v in data["reply_visible"]}
        probe.shown_latency = {(s, j): v for s, j, v in data["shown_latency"]}
        return probe


def _plain(detail: Any) -> Any:
    return list(detail) if isinstance(detail, tuple) else detail


def _rendered(image: Any) -> bool:
    """Whether a picture's widget has been rendered: textual-image's (marked by its render), or a picture
    made of characters (a Static) laid out on the screen, which the frame just ended rendered."""
    if getattr(image, "_probe_rendered", None) is not None:
        return True
    return image.has_class("picture-cells") and image.is_mounted and image.region.area > 0


def _query(node: Any, selector: str) -> Any:
    try:
        return node.query_one(selector)
    except Exception:  # noqa: BLE001 - not there (yet): the check fails, nothing else
        return None


def _state(screen: Any) -> str | None:
    """The session screen's state by its name (a ``SessionState``'s value), None on another screen."""
    state = getattr(screen, "state", None)
    return getattr(state, "value", None)


def _open_turn(screen: Any) -> tuple[int, int] | None:
    """(session, j) of the expert's turn if it is open on ``screen`` with the tag list focused."""
    from pxp_tui.app.session.widgets.tag_choice import TagChoice

    exchange = getattr(screen, "exchange", None)
    if _state(screen) != "human" or exchange is None or exchange.stop is not None:
        return None
    if not isinstance(screen.app.focused, TagChoice):
        return None
    return exchange.session_id, exchange.next_j


def _outcome_shown(screen: Any) -> int | None:
    """The session id whose outcome ``screen`` shows (the banner in the answer's place), else None."""
    exchange = getattr(screen, "exchange", None)
    banner = _query(screen, "#outcome")
    if _state(screen) != "outcome" or exchange is None or banner is None or not banner.display:
        return None
    return int(exchange.session_id)


def _pictures_shown(screen: Any) -> list[Any] | None:
    """The instance's picture widgets if every picture it shows is drawn and mounted, else None.

    A picture still drawing shows its "drawing…" status; a drawn one has hidden the status and
    mounted its image (whose first render the frame's end checks); one that could not be drawn says
    why in the status, and counts as done.
    """
    from pxp_tui.app.picture.widget import Picture

    view = _query(screen, "#instance")
    if view is None or not view.display:
        return []
    images: list[Any] = []
    for picture in view.query(Picture):
        if not picture.display or getattr(picture, "_draw_fn", None) is None:
            continue
        status = _query(picture, ".picture-status")
        mounted = list(picture.query(".picture-image"))
        if status is not None and status.display:
            text = str(getattr(status, "content", getattr(status, "renderable", "")))
            if not text or text.startswith("drawing"):
                return None
            continue  # no picture, and it says why
        if not mounted:
            return None
        images.extend(mounted)
    return images


# -- the wrappers -------------------------------------------------------------------------------------
def _wrap(owner: Any, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Replace ``owner.name`` by ``make(original)``; on a class, where it is defined (so that identity
    checks such as ``Task.draws_predictions`` see no new override)."""
    if isinstance(owner, type):
        owner = next((c for c in owner.__mro__ if name in c.__dict__), None)
        original = owner.__dict__[name] if owner is not None else None
    else:
        original = getattr(owner, name, None)
    if original is None or getattr(original, "_probe_wrapped", False):
        return
    wrapper = make(original)
    functools.update_wrapper(wrapper, original)
    wrapper._probe_wrapped = True  # type: ignore[attr-defined]
    setattr(owner, name, wrapper)


def _timed(probe: Probe, kind: str, detail: Callable[..., Any] | None = None, cpu: bool = False):
    """Time a function; with ``cpu``, also the CPU time of its thread (a "<kind> cpu" span of that length)."""

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start, start_cpu = now(), time.thread_time() if cpu else 0.0
            try:
                return original(*args, **kwargs)
            finally:
                end = now()
                info = detail(*args, **kwargs) if detail else None
                probe.span(kind, start, end, info)
                if cpu:
                    probe.span(f"{kind} cpu", start, start + time.thread_time() - start_cpu, info)

        return wrapper

    return make


def _timed_async(probe: Probe, kind: str, detail: Callable[..., Any] | None = None):
    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = now()
            try:
                return await original(*args, **kwargs)
            finally:
                probe.span(kind, start, now(), detail(*args, **kwargs) if detail else None)

        return wrapper

    return make


def _timed_generator(probe: Probe, kind: str):
    """A Rich ``__rich_console__``: timed while it yields (all of it, as the compositor consumes it)."""

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = now()
            segments = list(original(*args, **kwargs))
            probe.span(kind, start, now())
            return iter(segments)

        return wrapper

    return make


def _callback_name(callback: Any) -> str:
    """What an event-loop callback runs: a task's coroutine and name (Textual names its message pumps)."""
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        name = task.get_name()
        return f"{getattr(coro, '__qualname__', '?')} [{name[:60]}]"
    return getattr(callback, "__qualname__", type(callback).__name__)


def _wrap_loop(probe: Probe, threshold: float = 0.0005) -> None:
    """Every event-loop callback (a task's step, a timer) that takes more than ``threshold`` s: a "loop" span."""
    from asyncio import events

    from pxp_harness.internals import HANDLE_RUN, handle_callback

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(self: Any) -> Any:
            start = now()
            try:
                return original(self)
            finally:
                took = now() - start
                if took > threshold:
                    probe.span("loop", start, start + took, _callback_name(handle_callback(self)))

        return wrapper

    _wrap(events.Handle, HANDLE_RUN, make)


def _wrap_widget_renders(probe: Probe) -> None:
    """Every widget class's ``render_lines`` timed (the outermost call), as "widget render" spans named by class."""
    from textual.widget import Widget

    depth = threading.local()

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            outer = not getattr(depth, "n", 0)
            depth.n = getattr(depth, "n", 0) + 1
            start = now()
            probe.widget_rendered(self)
            try:
                return original(self, *args, **kwargs)
            finally:
                depth.n -= 1
                if outer:
                    probe.span("widget render", start, now(), type(self).__name__)

        return wrapper

    classes, seen = [Widget], set()
    while classes:
        cls = classes.pop()
        if cls in seen:
            continue
        seen.add(cls)
        classes.extend(cls.__subclasses__())
        if "render_lines" in cls.__dict__:
            _wrap(cls, "render_lines", make)


def install(probe: Probe) -> Probe:
    """Wrap the app's methods so that ``probe`` records spans and stamps (in this process)."""
    from textual.app import App
    from textual.screen import Screen

    from pxp_harness.internals import FRAME, TERMINAL_WRITE, Compositor, image_widget_base
    from pxp_tui.agents import offline
    from pxp_tui.agents.checker import Checker
    from pxp_tui.agents.live import LiveHuman
    from pxp_tui.agents.llm import LLMClient
    from pxp_tui.agents.machine import MachineAgent
    from pxp_tui.app.picture.widget import Picture
    from pxp_tui.app.session.screen import SessionScreen
    from pxp_tui.app.session.widgets.metrics_pane import MetricsPane
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.tasks import TASKS, get_task

    # the blackboard: one transaction per message, on the UI loop (the engine is an async worker)
    def record(original):
        def wrapper(self, message, context, stop):
            start = now()
            try:
                return original(self, message, context, stop)
            finally:
                end = now()
                probe.span("commit", start, end, (message.session_id, message.j))
                probe.stamp("commit", message.session_id, message.j, end)

        return wrapper

    def start_session(original):
        def wrapper(self, run_id, instance_id, order):
            start = now()
            session = original(self, run_id, instance_id, order)
            probe.span("commit", start, now(), (session, 0))
            probe.orders[session] = order
            return session

        return wrapper

    _wrap(Blackboard, "record", record)
    _wrap(Blackboard, "start_session", start_session)
    for name in ("set_status", "keep_context"):
        _wrap(Blackboard, name, _timed(probe, "commit"))

    # the expert's message handed to the engine
    def submit(original):
        def wrapper(self, *args, **kwargs):
            if self.turn is not None:
                probe.stamp("send", self.turn.session_id, self.turn.j)
            return original(self, *args, **kwargs)

        return wrapper

    _wrap(LiveHuman, "submit", submit)

    # the machine: its whole reply, each litellm round trip, the model's own answer (in a thread)
    _wrap(MachineAgent, "respond", _timed_async(probe, "machine respond", lambda self, turn: (turn.session_id, turn.j)))
    _wrap(LLMClient, "complete", _timed_async(probe, "litellm call", lambda self, *a, **k: self.model))
    _wrap(Checker, "agree", _timed_async(probe, "checker agree"))
    _wrap(offline, "answer", _timed(probe, "model answer", lambda name, messages: name, cpu=True))

    # pictures: the task's drawing (RDKit for DRUG, the stored image for RAD), the whole picture thread
    for name in TASKS:
        task_class = type(get_task(name))
        for method in ("draw_instance", "draw_prediction"):
            _wrap(task_class, method, _timed(probe, "draw picture", lambda *a, method=method, **k: method, cpu=True))
    draw = Picture.__dict__.get("_draw")
    inner = getattr(draw, "__wrapped__", None)
    if inner is not None and not getattr(draw, "_probe_wrapped", False):
        from textual import work

        timed = _timed(probe, "picture thread", cpu=True)(inner)
        functools.update_wrapper(timed, inner)
        rewrapped = work(thread=True, exclusive=True, group="picture")(timed)
        rewrapped._probe_wrapped = True  # type: ignore[attr-defined]
        Picture._draw = rewrapped

    # textual-image: the widget's render (marks it drawn), the renderables' encoding
    import textual_image.renderable as renderables  # asks the terminal, as the app's own probe does
    from textual_image.widget.sixel import Image as SixelWidget

    ImageWidget = image_widget_base()  # noqa: N806 - a class

    def rendered(original):
        def wrapper(self, *args, **kwargs):
            self._probe_rendered = now()
            return original(self, *args, **kwargs)

        return wrapper

    _wrap(ImageWidget, "render", rendered)
    from pxp_tui.app.picture.halfcell import HalfcellView  # half-cell lines built in the drawing thread, shown

    _wrap(HalfcellView, "render_line", rendered)
    for method in ("render", "render_lines"):  # the Sixel widget renders its own lines
        if method in SixelWidget.__dict__:
            _wrap(SixelWidget, method, rendered)
    for kind in ("HalfcellImage", "UnicodeImage", "SixelImage", "TGPImage"):
        renderable = getattr(renderables, kind, None)
        if renderable is not None:
            _wrap(renderable, "__init__", _timed(probe, "image prepare"))
            _wrap(renderable, "__rich_console__", _timed_generator(probe, "image encode"))

    # Textual: layout, render, the terminal write; frames of the session screen
    _wrap_widget_renders(probe)
    _wrap_loop(probe)
    _wrap(Compositor, "reflow", _timed(probe, "layout"))
    _wrap(Compositor, "render_update", _timed(probe, "render"))
    _wrap(App, TERMINAL_WRITE, _timed(probe, "terminal write"))

    def compositor_refresh(original):
        def wrapper(self, *args, **kwargs):
            current = isinstance(self, SessionScreen) and self.is_current
            if current:
                probe.frame_start(self)
            result = original(self, *args, **kwargs)
            if current:
                probe.frame_end(self)
            return result

        return wrapper

    _wrap(Screen, FRAME, compositor_refresh)

    # the session screen's handlers (on the UI loop), and the chart they update
    def on_message_recorded(original):
        def wrapper(self, event):
            start = now()
            try:
                return original(self, event)
            finally:
                message = event.message
                probe.span("screen handlers", start, now(), "message_recorded")
                if (
                    message.sender.value == "machine"
                    and self.exchange is not None
                    and self.exchange.session_id == message.session_id
                ):
                    # on the screen once the frame that renders the machine pane's text with it is rendered
                    text = _query(self, "#machine-explanation")
                    probe.pending_replies.append((message.session_id, message.j, text, message))
                    if message.meta.get("latency_ms") is not None:
                        probe.shown_latency[(message.session_id, message.j)] = float(message.meta["latency_ms"])

        return wrapper

    def on_session_started(original):
        def wrapper(self, event):
            probe.orders[event.session_id] = event.order
            start = now()
            try:
                return original(self, event)
            finally:
                probe.span("screen handlers", start, now(), "session_started")

        return wrapper

    _wrap(SessionScreen, "on_message_recorded", on_message_recorded)
    _wrap(SessionScreen, "on_session_started", on_session_started)
    for name in ("on_session_ended", "on_human_turn", "_submit"):
        _wrap(SessionScreen, name, _timed(probe, "screen handlers", lambda *a, name=name: name))
    _wrap(MetricsPane, "refresh_metrics", _timed(probe, "chart"))
    try:
        from textual_plotext import PlotextPlot

        _wrap(PlotextPlot, "render", _timed(probe, "chart"))
    except ImportError:  # pragma: no cover - a dependency of the app
        pass
    return probe
