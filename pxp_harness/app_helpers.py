"""Driving the app in tests: make a run, open the app on it, wait for the expert's turn, answer."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pxp_harness.waiting import PATIENCE, Patience
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig, parse_human
from pxp_tui.runs.create import create_run


class MachineGate:
    """The offline machine, answering only while the gate is open: a test does what it must while the machine
    thinks (keys pressed too early, a seat taken), for as long as that takes, then opens it. Open at first."""

    def __init__(self, monkeypatch: Any) -> None:
        from pxp_tui.agents import offline

        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self.held = 0  # calls waiting at the closed gate now (each in a thread of its own)
        real = offline.timed_answer

        def timed(name: str, messages: list[dict[str, Any]]) -> tuple[str, float]:
            if name != offline.WARM_UP and not self._open.is_set():  # the app's warm-up call is not the machine's
                with self._lock:
                    self.held += 1
                try:
                    assert self._open.wait(PATIENCE), "the test never let the machine answer"
                finally:
                    with self._lock:
                        self.held -= 1
            return real(name, messages)

        monkeypatch.setattr(offline, "timed_answer", timed)

    def close(self) -> None:
        self._open.clear()

    def open(self) -> None:
        self._open.set()


def make_run(db_path: Path, **fields: Any) -> int:
    """A run in the blackboard at ``db_path`` (a live expert "alice" on two demo instances unless told)."""
    kind, expert = parse_human(fields.pop("human", "alice"))
    config = RunConfig(**{"human_kind": kind, "expert": expert, "limit": 2, **fields})
    with Blackboard.open(db_path) as board:
        return create_run(board, config)


def rows(db_path: Path, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
    with Blackboard.open(db_path, readonly=True) as board:
        return list(board.db.query(sql, params))


def messages(db_path: Path, run_id: int) -> list[tuple[int, int, str, str, str]]:
    """(session order, j, sender, tag, prediction) of every committed message of the run."""
    sql = """SELECT d.ord, m.j, m.sender, m.tag, m.prediction FROM messages m JOIN data d ON d.session_id = m.session_id
             WHERE d.run_id = ? ORDER BY d.ord, m.j"""
    return [(r["ord"], r["j"], r["sender"], r["tag"], r["prediction"]) for r in rows(db_path, sql, (run_id,))]


async def wait_for(pilot: Any, condition: Callable[[], Any], what: str | Callable[[], str] = "the app") -> Any:
    """Let the app run until ``condition()`` is true; fails (naming ``what``, or what ``what()`` says then) if it
    is not within :data:`PATIENCE`."""

    async def now() -> Any:
        return condition()

    return await wait_for_async(pilot, now, what)


def session_screen(app: PXPApp) -> Any:
    from pxp_tui.app.session.screen import SessionScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, SessionScreen):
            return screen
    return None


def footer_keys(screen: Any) -> tuple[set[tuple[str, bool]], set[tuple[str, bool]]]:
    """(shown, offered): (action, enabled) of each key the footer shows (or hides for want of room: ``?`` lists it),
    and of each key the screen's bindings offer now (the first binding of each action, as Textual's footer takes them)."""
    from pxp_harness.internals import FooterKey
    from pxp_tui.app.shared.fitting_footer import NO_ROOM

    keys = [k for k in screen.query(FooterKey) if not k.has_class("-command-palette")]
    shown = {(k.action, not k.has_class("-disabled")) for k in keys if k.display or k.has_class(NO_ROOM)}
    offered: dict[str, bool] = {}
    for _, binding, enabled, _ in screen.active_bindings.values():
        if binding.show and binding.action not in offered:
            offered[binding.action] = enabled
    return shown, set(offered.items())


def footer_current(screen: Any) -> bool:
    """Whether the footer shows the keys the screen offers now (it follows a change of focus or state a frame later)."""
    shown, offered = footer_keys(screen)
    return bool(shown) and shown == offered


def settled_now(app: PXPApp | Any) -> str | None:
    """What the screen shown still has to do, or None: a session's frame held for its widgets, a worker (the engine
    aside: it waits for the expert), a picture shown whose drawing is due, the header's title, the footer's keys."""
    from textual.widgets import Footer, Header

    from pxp_harness.internals import HeaderTitle
    from pxp_tui.app.picture.widget import Picture

    screen = app.screen
    session = session_screen(app) if isinstance(app, PXPApp) else None
    if session is not None and session.frame.held:
        return "the session's frame, held for its widgets"
    busy = [w.name or w.group for w in app.workers if not w.is_finished and w.group != "engine"]
    if busy:
        return f"the workers {busy}"
    # a picture is drawn once its frame is laid out, after a resize settles (a timer, not a worker): until then
    # it shows "drawing…"
    drawing = [picture.id for picture in screen.query(Picture) if picture.busy and shown(picture)]
    if drawing:
        return f"the pictures {drawing} being drawn"
    for header in screen.query(Header):
        if str(header.query_one(HeaderTitle).render()) != str(header.format_title()):
            return "the header's title"
    if screen.query(Footer) and not footer_current(screen):
        return "the footer's keys"
    return None


def shown(widget: Any) -> bool:
    """Whether ``widget`` and every widget around it are displayed (it is laid out on its screen)."""
    return all(node.display for node in widget.ancestors_with_self if hasattr(node, "display"))


async def settled(pilot: Any) -> None:
    """Wait until the screen shown has nothing left to do (:func:`settled_now`), then for its last messages
    and frame, and still nothing to do after them (a worker's result may start another: a read, then its
    pictures): what a snapshot, a frame count or a screen's contents need before they are read."""
    app = pilot.app
    what = lambda: f"the screen to settle (still: {settled_now(app)})"  # noqa: E731
    bound = Patience(what)
    while True:
        await wait_for(pilot, lambda: settled_now(app) is None, what)
        await pilot.pause()
        if settled_now(app) is None:
            return
        bound.give_up(settled_now(app))


async def expert_turn(pilot: Any, app: PXPApp, j: int | None = None) -> Any:
    """Wait until the expert may answer (message ``j`` if given); returns the session screen."""

    def ready() -> Any:
        screen = session_screen(app)
        if screen is None or screen.state is not SessionState.HUMAN or screen.exchange is None or app.screen is not screen:
            return None
        if j is not None and screen.exchange.next_j != j:
            return None
        return screen

    async def moved_on() -> Any:  # past a finished session's outcome, as the expert does (enter)
        screen = session_screen(app)
        if screen is not None and screen.state is SessionState.OUTCOME and app.screen is screen:
            await pilot.press("enter")
        return ready()

    return await wait_for_async(pilot, moved_on, f"the expert's turn at message {j}")


async def wait_for_async(pilot: Any, condition: Callable[[], Any], what: str | Callable[[], str] = "the app") -> Any:
    """:func:`wait_for` with a coroutine ``condition`` (one that may press keys); between two looks, until the
    app has handled what it had pending and its loop is idle (Pilot's ``pause()``), never a fixed time."""
    bound = Patience(what)
    while not (value := await condition()):
        bound.give_up(value)
        await pilot.pause()
    return value


async def outcome_shown(pilot: Any, app: PXPApp) -> Any:
    """Wait for a finished session's outcome banner; returns the session screen."""

    def shown() -> Any:
        screen = session_screen(app)
        return screen if screen is not None and screen.state is SessionState.OUTCOME and app.screen is screen else None

    return await wait_for(pilot, shown, "a session's outcome")


async def run_done(pilot: Any, app: PXPApp) -> Any:
    """Move past the last session's outcome and wait for the end of the run; returns the session screen."""
    screen = await outcome_shown(pilot, app)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.state is SessionState.DONE, "the end of the run")
    return screen


async def type_answer(
    pilot: Any, app: PXPApp, prediction: str | None = None, explanation: str | None = None, *, keys: bool = False
) -> None:
    """Replace the picker's fields, as pasted (or, with ``keys``, typed key by key: slow under Pilot)."""
    from textual.widgets import Input, TextArea

    for selector, kind, attribute, text in (
        ("#answer-prediction", Input, "value", prediction),
        ("#answer-explanation", TextArea, "text", explanation),
    ):
        if text is None:
            continue
        field = app.screen.query_one(selector, kind)
        field.focus()
        setattr(field, attribute, "" if keys else text)
        if keys:
            await pilot.press(*text)
    await pilot.pause()


async def drained(pilot: Any) -> None:
    """Wait until the app and every widget of every screen on the stack (Pilot's own waits look at the screen
    shown only) have handled what they were sent so far, or have closed meanwhile."""
    app = pilot.app
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    waiting = {id(node): node for node in nodes}

    def handled(key: int) -> Callable[[], None]:
        return lambda: waiting.pop(key, None)

    for node in nodes:
        if not node.call_later(handled(id(node))):  # closed already
            waiting.pop(id(node), None)
    await wait_for(pilot, lambda: all(not node.is_running for node in waiting.values()), "the screens' messages handled")


@asynccontextmanager
async def live_app(db_path: Path, size: tuple[int, int] = (160, 48), **fields: Any) -> AsyncIterator[tuple[PXPApp, Any, int]]:
    """The app opened on a new run (:func:`make_run` with ``fields``): yields (app, pilot, run id)."""
    run_id = make_run(db_path, **fields)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, run_id
        # what the screens scheduled runs before the app closes (Textual's Header sets its title in a task:
        # closing the app under it, e.g. just as the run's summary opens, fails in that task)
        await drained(pilot)
