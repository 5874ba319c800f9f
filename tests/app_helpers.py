"""Driving the app in tests: make a run, open the app on it, wait for the expert's turn, answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig, parse_human
from pxp_tui.runs.create import create_run

#: how long a test waits for something the app should do soon (a bound against hanging, not a timing assertion)
PATIENCE = 30.0


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


async def wait_for(pilot: Any, condition: Callable[[], Any], what: str = "the app") -> Any:
    """Let the app run until ``condition()`` is true; fails (naming ``what``) if it never is."""
    steps = int(PATIENCE / 0.02)
    for _ in range(steps):
        value = condition()
        if value:
            return value
        await pilot.pause(0.02)
    raise AssertionError(f"gave up waiting for {what}")


def session_screen(app: PXPApp) -> Any:
    from pxp_tui.app.session.screen import SessionScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, SessionScreen):
            return screen
    return None


async def expert_turn(pilot: Any, app: PXPApp, j: int | None = None) -> Any:
    """Wait until the expert may answer (message ``j`` if given); returns the session screen."""

    def ready() -> Any:
        screen = session_screen(app)
        if screen is None or screen.state != "human" or screen.exchange is None or app.screen is not screen:
            return None
        if j is not None and screen.exchange.next_j != j:
            return None
        return screen

    async def moved_on() -> Any:  # past a finished session's outcome, as the expert does (enter)
        screen = session_screen(app)
        if screen is not None and screen.state == "outcome" and app.screen is screen:
            await pilot.press("n")
        return ready()

    return await wait_for_async(pilot, moved_on, f"the expert's turn at message {j}")


async def wait_for_async(pilot: Any, condition: Callable[[], Any], what: str = "the app") -> Any:
    """:func:`wait_for` with a coroutine ``condition`` (one that may press keys)."""
    for _ in range(int(PATIENCE / 0.02)):
        value = await condition()
        if value:
            return value
        await pilot.pause(0.02)
    raise AssertionError(f"gave up waiting for {what}")


async def outcome_shown(pilot: Any, app: PXPApp) -> Any:
    """Wait for a finished session's outcome banner; returns the session screen."""

    def shown() -> Any:
        screen = session_screen(app)
        return screen if screen is not None and screen.state == "outcome" and app.screen is screen else None

    return await wait_for(pilot, shown, "a session's outcome")


async def run_done(pilot: Any, app: PXPApp) -> Any:
    """Move past the last session's outcome and wait for the end of the run; returns the session screen."""
    screen = await outcome_shown(pilot, app)
    await pilot.press("n")
    await wait_for(pilot, lambda: screen.state == "done", "the end of the run")
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


@asynccontextmanager
async def live_app(db_path: Path, size: tuple[int, int] = (160, 48), **fields: Any) -> AsyncIterator[tuple[PXPApp, Any, int]]:
    """The app opened on a new run (:func:`make_run` with ``fields``): yields (app, pilot, run id)."""
    run_id = make_run(db_path, **fields)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, run_id
        # let what the last screen shown scheduled run before the app closes (Textual's Header sets its title
        # in a task: closing the app under it, e.g. just as the run's summary opens, fails in that task)
        await pilot.pause(0.1)
