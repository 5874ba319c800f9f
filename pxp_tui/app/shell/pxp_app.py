"""The PXP app: its screens, app-wide keys, the command palette, and what loads after the first paint."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from pxp_tui.app.shared.alt_keys import AltKeys
from pxp_tui.app.shared.browser import PALETTE, named_key
from pxp_tui.app.shared.goodbye import bound_goodbye
from pxp_tui.app.shared.keys_in_order import KeysInOrder
from pxp_tui.app.shared.look import Look
from pxp_tui.app.shared.visible_text import VisibleText
from pxp_tui.app.shell.keys import key_rows

if TYPE_CHECKING:
    from pxp_tui.blackboard import Blackboard

T = TypeVar("T")

#: the actions of pxp's own palette commands: a screen's key for one of them is not listed again
OWN_COMMANDS = ("new_run", "open_review", "help")


class PXPApp(AltKeys, KeysInOrder, VisibleText, Look, App[int]):
    """``PXPApp(db_path)`` opens on the start screen; ``PXPApp(db_path, run_id=ID)`` on that run."""

    TITLE = "PXP"
    # the screens that can come first are styled from the start (the others load theirs when pushed)
    CSS_PATH = ["pxp_app.tcss", "../start/screen.tcss", "../session/screen.tcss"]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    # the footer shows the command palette's key (ctrl+p, alt+p in a browser tab, where ctrl+p prints); the other
    # opens it too
    COMMAND_PALETTE_BINDING = named_key(PALETTE)
    BINDINGS = [
        Binding("question_mark,f1", "help", "Keys", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding(
            next(k for k in PALETTE if k != named_key(PALETTE)),
            "palette",
            "Command palette",
            show=False,
            system=True,
            id="app.palette",
        ),
    ]

    def __init__(self, db_path: Path, *, run_id: int | None = None, preload: bool = True) -> None:
        super().__init__()
        self.db_path = Path(db_path)
        self.first_run = run_id
        self.preload = preload
        self._board: Blackboard | None = None
        self._board_lock = asyncio.Lock()
        self._loaded = asyncio.Event()
        self._loading: Any = None
        self._painted = asyncio.Event()
        self._stopping: asyncio.Future[None] | None = None
        self._undo_signals: Callable[[], None] | None = None

    def get_default_screen(self) -> Screen:
        """The first screen: the start screen, or the run given on the command line."""
        if self.first_run is not None:
            from pxp_tui.app.session.screen import SessionScreen

            return SessionScreen(self.first_run)
        from pxp_tui.app.start.screen import StartScreen

        return StartScreen()

    def _stop_signal(self, signum: int, reason: str) -> None:
        """SIGTERM, SIGHUP (the terminal closed) or SIGINT: the run pauses, with the reason, and the app exits."""
        if self._stopping is None:
            gone = signum == getattr(signal, "SIGHUP", None)
            self._stopping = asyncio.ensure_future(self._leave(reason, 128 + signum, terminal_gone=gone))

    def on_ready(self) -> None:
        # after the first frame (importing the engine's package costs about 5 ms); runs are driven only once
        # :meth:`loaded`, which waits for this
        from pxp_tui.app.shell import heap
        from pxp_tui.engine.stopping import on_stop_signals

        heap.settle("first frame")  # the modules and the first screen, left out of the collector's walks
        self._undo_signals = on_stop_signals(self._stop_signal)
        if self.is_web:  # pxp serve: the frames and a file's pieces (another thread's) reach the server whole
            from pxp_tui.app.shared.textual_internals import web_writes_whole

            web_writes_whole(self)
        self._painted.set()
        if self.preload:
            self._start_loading()

    async def painted(self) -> None:
        """Wait for the first frame: work that competes for the CPU starts after it."""
        await self._painted.wait()

    # -- what the screens share -------------------------------------------------------------------
    async def blackboard(self) -> Blackboard:
        """The blackboard, opened (and created or migrated) in a thread on first use."""
        async with self._board_lock:
            if self._board is None:
                self._board = await asyncio.to_thread(_open_blackboard, self.db_path)
        return self._board

    async def read_board(self, read: Callable[..., T], *args: Any) -> T:
        """``read(board, *args)`` in a thread, on a read-only connection of its own.

        Readers never share the writer's connection (WAL lets them read while it writes); every write
        (a new run, the engine's messages, a model switch) goes through :meth:`blackboard`'s, one at a time.
        """
        await self.blackboard()  # the file exists, at the current schema
        return await asyncio.to_thread(_read_blackboard, self.db_path, read, args)

    async def stop_engines(self, reason: str | None = None) -> None:
        """Stop every run this app drives (each is paused, resumable, with ``reason``), before another writes."""
        for screen in self.screen_stack:
            stop = getattr(screen, "stop_engine", None)
            if stop is not None:
                await stop(reason)

    async def loaded(self) -> None:
        """Wait until the tasks, the run wiring and the drawing code are loaded (in a thread, after first paint;
        litellm is loaded apart, when a model is named: :meth:`expect_model`)."""
        await self.painted()  # so no run is driven before the stop signals are handled (:meth:`on_ready`)
        self._start_loading()
        await self._loaded.wait()

    def expect_model(self, model: str | None) -> None:
        from pxp_tui.app.shell import preload

        preload.expect_model(model)

    def _start_loading(self) -> None:
        if self._loading is None:
            self._loading = self.load_modules()

    @work(group="preload")
    async def load_modules(self) -> None:
        from pxp_tui.app.shell import preload
        from pxp_tui.app.start.screen import available_tasks

        await asyncio.to_thread(preload.load, available_tasks())
        self._loaded.set()

    def open_run(self, run_id: int) -> None:
        from pxp_tui.app.session.screen import SessionScreen

        self.push_screen(SessionScreen(run_id))

    def on_unmount(self) -> None:
        if self._undo_signals is not None:
            self._undo_signals()
        if self._board is not None:
            self._board.close()

    # -- actions ----------------------------------------------------------------------------------
    def action_help(self) -> None:
        from pxp_tui.app.shell.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        """Quit; mid-session, only after the expert confirms (nothing shown is lost either way)."""
        warning = getattr(self.screen, "quit_warning", None)
        question = warning() if warning else None
        if question:
            from pxp_tui.app.shared.confirm import ConfirmScreen

            self.push_screen(ConfirmScreen(question, yes="Quit"), self._quit_confirmed)
            return
        await self._leave()

    async def _quit_confirmed(self, yes: bool | None) -> None:
        if yes:
            await self._leave()

    async def _leave(self, reason: str = "quit", code: int = 0, *, terminal_gone: bool = False) -> None:
        if terminal_gone or not self.is_headless:
            # whatever holds the goodbye up (app/shared/goodbye.py); the runs are paused first (below), and every message
            # was committed when shown: nothing is lost
            bound_goodbye(code)
        await self.stop_engines(reason)
        if terminal_gone:
            # The terminal has closed: nothing is left to restore on it, and Textual's goodbye to it can wait
            # for ever (its writer thread dies on the closed terminal, then its queue of writes fills). Every
            # message was committed when shown, and the runs are paused: the process ends here.
            if self._board is not None:
                self._board.close()
            os._exit(code)
        self.exit(0, return_code=code)

    def action_open_review(self) -> None:
        """Open the review of past runs (``pxp_tui.app.review``), read-only."""
        from pxp_tui.app.review import ReviewScreen

        self.push_screen(ReviewScreen(self.db_path))

    def action_palette(self) -> None:
        self.action_command_palette()

    def action_new_run(self) -> None:
        from pxp_tui.app.start.screen import StartScreen

        self.push_screen(StartScreen())

    # -- the command palette ----------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Each command once: Textual's (but its keys panel: "Show every key" is pxp's), pxp's own, then the
        screen's keys not already among them (the start screen's ctrl+o is "Review past runs")."""
        listed = {"Keys"}  # Textual's keys panel: the same as "Show every key"
        for command in super().get_system_commands(screen):
            if command.title not in listed:
                listed.add(command.title)
                yield command
        yield SystemCommand("New run", "Open the start screen to configure a run", self.action_new_run)
        yield SystemCommand("Review past runs", "Browse finished and unfinished runs", self.action_open_review)
        yield SystemCommand("Show every key", "The keys of this screen and the app", self.action_help)
        listed |= {"New run", "Review past runs", "Show every key", "Quit"}
        active = screen.active_bindings
        for row in key_rows(self, screen):
            if row.where == "everywhere" or row.description in listed or row.action.removeprefix("app.") in OWN_COMMANDS:
                continue
            listed.add(row.description)
            binding = next((b for b in active.values() if b.binding.id == row.id), None)
            if binding is None or not binding.enabled or not self._applies(binding):
                continue
            yield SystemCommand(
                row.description, f"{row.where} · key {row.keys}", partial(self.run_action, row.action, binding.node)
            )

    def _applies(self, active: Any) -> bool:
        node, binding = active.node, active.binding
        action = binding.action.partition("(")[0]
        return node.check_action(action, ()) is True


def _open_blackboard(path: Path) -> Blackboard:
    from pxp_tui.blackboard import Blackboard  # sqlite-utils: imported in this thread, not on the UI loop

    return Blackboard.open(path)


def _read_blackboard(path: Path, read: Callable[..., T], args: tuple[Any, ...]) -> T:
    from pxp_tui.blackboard import Blackboard

    with Blackboard.open(path, readonly=True) as board:
        return read(board, *args)
