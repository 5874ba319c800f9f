"""How the engine awaits the recorder's writes (a :data:`Store`), the caller's choice: :func:`at_once` runs each on the
loop's own thread, as a headless run wants (nothing else waits on its loop, and a write costs no more than its
commit); :func:`stored` runs each in a worker thread, as the app wants: a write may wait its turn for the file while
other processes write it, and the loop (the screen, the keys) goes on meanwhile.

A module of its own so that the command line chooses how its writes run without importing the stop rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: how the engine awaits one of the recorder's writes: ``await store(write, *args)`` is ``write(*args)``
Store = Callable[..., Awaitable[Any]]


async def at_once(write: Callable[..., T], *args: Any) -> T:
    """``write(*args)``, a recorder's write, on the loop's thread: the loop waits for it (committed or rolled back)."""
    return write(*args)


async def stored(write: Callable[..., T], *args: Any) -> T:
    """``write(*args)``, a recorder's write, in a thread; its result. A cancellation meanwhile waits for the write to
    end (committed or rolled back whole, never half-done), then goes on as a cancellation."""
    done = asyncio.ensure_future(asyncio.to_thread(write, *args))
    done.add_done_callback(_retrieved)  # cancelled twice, nobody awaits it: its error is not an unretrieved one
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        if not done.done():
            await asyncio.wait([done])
        raise


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
