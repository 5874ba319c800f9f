"""Waiting in tests: a bounded loop on a condition, never a fixed time (tests/app/test_waits.py keeps it so).

A fixed pause passes on an idle machine and fails on a loaded one (two cores shared by a whole suite
under ``-n``); a wait on the state the test needs takes as long as the machine does, and when it gives
up it says what it waited for. The Pilot tests wait with ``app_helpers.wait_for``; code outside an
app's loop (a subprocess, a terminal, a file) with :func:`poll`, or :func:`async_poll` in a coroutine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: how long a test waits for something that should happen soon: a bound against hanging, not a timing assertion
#: (generous: a suite under -n on two cores shared with other work has seen the app take 50 s to load)
PATIENCE = 120.0

#: seconds between two looks at a condition
STEP = 0.05


class Patience:
    """A bound on one wait: :meth:`give_up` fails, naming what was awaited, once ``seconds`` have passed."""

    def __init__(self, what: str | Callable[[], str], seconds: float = PATIENCE) -> None:
        self.what, self.seconds = what, seconds
        self.deadline = time.monotonic() + seconds

    def give_up(self, value: object) -> None:
        """Fails if the time is up; ``value``: what the condition returned last."""
        if time.monotonic() > self.deadline:
            what = self.what() if callable(self.what) else self.what
            raise AssertionError(f"gave up after {self.seconds:.0f} s waiting for {what} (last: {value!r})")


def poll(condition: Callable[[], T], what: str, patience: float = PATIENCE, step: float = STEP) -> T:
    """``condition()``'s first true value, looked at every ``step`` seconds; AssertionError naming ``what`` (and
    what the condition last returned) if it is still false after ``patience`` seconds."""
    bound = Patience(what, patience)
    while not (value := condition()):
        bound.give_up(value)
        time.sleep(step)
    return value


async def async_poll(condition: Callable[[], T], what: str, patience: float = PATIENCE, step: float = STEP) -> T:
    """:func:`poll` in a coroutine: the event loop runs between the looks (nothing else is asked of it, so a
    Textual screen is not made to paint, as Pilot's pause does)."""
    bound = Patience(what, patience)
    while not (value := condition()):
        bound.give_up(value)
        await asyncio.sleep(step)
    return value
