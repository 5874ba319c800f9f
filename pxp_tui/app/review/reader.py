"""The review's reads: one read-only connection, read by one thread, so that no two reads ever overlap on it.

The runs list, a run's sessions and a replay share one connection, and refresh themselves every few seconds while a
run is being written; a key (r, a filter, a page) asks for a read at any moment too. Each read is queued to the
reader's one thread and runs there whole (the rows fetched before it returns): a refresh asked while another runs
waits for it. The screens await the reads, so the UI loop never does.

Writing a note is the review's one write, and does not go through here: see
:mod:`pxp_tui.app.review.review_notes`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from pxp_tui.blackboard import Blackboard

T = TypeVar("T")


class ReviewBoard:
    """The blackboard at ``path``, read-only, read on one thread (see the module's note)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pxp-review-reader")
        try:
            self._board = self._pool.submit(Blackboard.open, self.path, create=False, readonly=True).result()
        except BaseException:
            self._pool.shutdown(wait=False)
            raise
        #: reads asked for and not finished (the one running included)
        self.pending = 0
        self._counting = threading.Lock()

    async def read(self, read: Callable[..., T], *args: Any) -> T:
        """``read(board, *args)`` on the reader's thread, after the reads asked before it; its result."""
        self._count(1)
        future = self._pool.submit(self._run, read, args)
        return await asyncio.wrap_future(future)

    def _run(self, read: Callable[..., T], args: tuple[Any, ...]) -> T:
        try:
            return read(self._board, *args)
        finally:
            self._count(-1)

    def _count(self, step: int) -> None:
        with self._counting:
            self.pending += step

    def close(self) -> None:
        """Close the connection once the reads asked for are done (on the reader's thread, after them)."""
        self._pool.submit(self._board.close)
        self._pool.shutdown(wait=False)
