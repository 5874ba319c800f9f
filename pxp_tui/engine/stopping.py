"""Stop signals: SIGINT, SIGTERM and SIGHUP (a closed terminal) pause the runs being driven, with the reason.

A signal cancels the driving task with the signal's reason as the cancellation's message; the engine
records it as why the run paused (``describe_error``). A cancellation lands at an ``await``, between
two transactions, so nothing is half-written and the run resumes at its next message.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

#: the signals that stop a run, and the reason recorded with its ``paused`` status
STOP_SIGNALS = {
    "SIGINT": "interrupted (SIGINT)",
    "SIGTERM": "terminated (SIGTERM)",
    "SIGHUP": "terminal closed (SIGHUP)",
}


class StopSignalError(Exception):
    """A stop signal arrived and the runs were paused with ``reason``; exit with ``128 + signum``."""

    def __init__(self, signum: int, reason: str) -> None:
        super().__init__(reason)
        self.signum = signum
        self.reason = reason


def stop_signals() -> dict[int, str]:
    """Signal number -> reason, for the stop signals this platform has."""
    return {getattr(signal, name): reason for name, reason in STOP_SIGNALS.items() if hasattr(signal, name)}


def on_stop_signals(callback: Callable[[int, str], None]) -> Callable[[], None]:
    """Call ``callback(signum, reason)`` on the running loop when a stop signal arrives; returns the undo."""
    loop = asyncio.get_running_loop()
    installed = []
    for signum, reason in stop_signals().items():
        try:
            loop.add_signal_handler(signum, callback, signum, reason)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals here (Windows, not the main thread)
            continue
        installed.append(signum)

    def undo() -> None:
        for signum in installed:
            loop.remove_signal_handler(signum)

    return undo


async def until_stopped(work: Awaitable[T]) -> T:
    """Await ``work`` (runs being driven); a stop signal cancels it with its reason, then :class:`StopSignalError`."""
    task = asyncio.ensure_future(work)
    received: list[tuple[int, str]] = []

    def stop(signum: int, reason: str) -> None:
        received.append((signum, reason))
        task.cancel(reason)

    undo = on_stop_signals(stop)
    try:
        return await task
    except asyncio.CancelledError:
        if received:
            raise StopSignalError(*received[0]) from None
        raise
    finally:
        undo()
