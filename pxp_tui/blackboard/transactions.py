"""Many writers, one file: every write transaction waits its turn as a writer, and never fails because another writes.

Several pxp processes write one blackboard at once (headless runs, the app, an import, a merge), and in a process
the app's UI loop and its threads share one connection. How each write gets its turn:

* **Every write transaction starts ``BEGIN IMMEDIATE``.** A deferred transaction (``BEGIN``, a read, then a write)
  holds a read snapshot when it first writes; SQLite then refuses its upgrade to a writer at once, without calling
  the busy handler (``SQLITE_BUSY``: two readers waiting for each other to finish would deadlock), if another
  connection is writing or has written since the snapshot. ``BEGIN IMMEDIATE`` takes the write lock before reading
  anything, and waits for it under the busy timeout. :class:`WriterDatabase` is sqlite-utils' ``Database`` whose
  ``atomic()`` (which its ``insert``, ``upsert``, ``insert_all`` and ``transform`` use) starts so, and which wraps a
  write statement run outside a transaction in one.
* **A writer that meets a lock waits, with backoff, and keeps its place.** SQLite's busy handler waits with its own
  backoff (sleeps from 1 ms to 25 ms) for :data:`ATTEMPT_MS`; then :func:`begin` asks again, so that a writer that
  has waited long is not outrun by those that ask later. While another program holds the file (a ``sqlite3`` shell
  with a transaction open, an older pxp importing), it goes on asking for :func:`wait_limit` seconds in all
  (``PXP_LOCK_WAIT``, 60 by default). Only then does the write fail, saying how long it waited; the engine then pauses
  the run, and nothing committed is lost.
* **One writer per file and process.** Every connection of this process to one file shares a :class:`Writer`, whose
  re-entrant lock is held for each statement and for the whole of a transaction. A statement from another thread
  therefore never lands inside a transaction (nor opens a savepoint inside another's), and two connections of one
  process queue on the lock instead of polling SQLite's. The rows of a query are fetched after the lock is let go
  (sqlite-utils' cursors are lazy): the blackboard's readers fetch them at once, and a transaction started meanwhile by
  another thread waits, as :func:`begin` retries, until the cursor is done.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

T = TypeVar("T")

#: SQLite's own wait for a lock on a read-only connection (``PRAGMA busy_timeout``); a writer's is :data:`ATTEMPT_MS`
BUSY_TIMEOUT_MS = 5000
#: seconds a write waits in all for another program's lock, unless ``PXP_LOCK_WAIT`` says otherwise
WAIT_LIMIT = 60.0
#: milliseconds SQLite waits for a lock in one attempt on a writer's connection (its busy timeout): then the statement
#: is asked again (:func:`begin`, :func:`retrying`), up to :func:`wait_limit`
ATTEMPT_MS = 100
_PAUSE, _LONGEST_PAUSE = 0.002, 1.0
#: SQLite's result codes (the primary ones, the low byte of an extended code) for a lock held elsewhere
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6
#: the first words of statements run as they are: reads, and what cannot run in a transaction (the rest, writes, run
#: in a write transaction of their own when none is open)
_BARE = frozenset({"SELECT", "PRAGMA", "EXPLAIN", "VALUES", "WITH", "ATTACH", "DETACH"})
_CONTROL = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})
_FIRST_WORD = re.compile(r"(?:\s|;|--[^\n]*(?:\n|$)|/\*.*?\*/)*([A-Za-z]+)", re.DOTALL)


def wait_limit() -> float:
    """Seconds a write waits in all for a lock held elsewhere: ``PXP_LOCK_WAIT``, or :data:`WAIT_LIMIT`."""
    given = os.environ.get("PXP_LOCK_WAIT", "").strip()
    try:
        return max(0.0, float(given)) if given else WAIT_LIMIT
    except ValueError:
        return WAIT_LIMIT


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying that another connection holds the lock it needs."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "is locked" in str(exc)


def _first_word(sql: str) -> str:
    """The statement's first keyword, upper-cased, past white space and comments ("" if none)."""
    found = _FIRST_WORD.match(sql)
    return found.group(1).upper() if found else ""


class Writer:
    """The one writer of a blackboard file in this process: its lock, and transactions that wait their turn.

    ``Writer.of(path)`` is shared by every connection of this process to that file (an in-memory blackboard has one
    of its own). :attr:`waits` keeps how long the latest transactions waited for the write lock, in seconds.
    """

    _shared: weakref.WeakValueDictionary[tuple[int, int], Writer] = weakref.WeakValueDictionary()
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.waits: deque[float] = deque(maxlen=100_000)
        #: threads of this process waiting for :attr:`lock` now
        self.waiting = 0
        self._count = threading.Lock()

    @classmethod
    def of(cls, path: Path | None) -> Writer:
        """The writer of the file at ``path`` in this process (made on first use); a new one for None (in memory)."""
        if path is None:
            return cls()
        info = os.stat(path)
        key = (info.st_dev, info.st_ino)
        with cls._guard:
            found = cls._shared.get(key)
            if found is None:
                found = cls._shared[key] = cls()
            return found

    def acquire(self) -> None:
        """Take the lock (re-entrant: a thread holding it takes it again at once); :meth:`release` it after."""
        if self.lock.acquire(blocking=False):
            return
        with self._count:
            self.waiting += 1
        try:
            self.lock.acquire()
        finally:
            with self._count:
                self.waiting -= 1

    def release(self) -> None:
        self.lock.release()

    @contextmanager
    def held(self) -> Iterator[None]:
        """The lock, held for the block."""
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def transaction(self, conn: sqlite3.Connection, limit: float | None = None, *, durable: bool = True) -> Transaction:
        """A write transaction on ``conn``, begun ``IMMEDIATE`` (a savepoint inside one already open): all of it is
        committed, or none. The lock is held throughout. ``limit``: seconds to wait in all for another program's lock
        (default :func:`wait_limit`; 0: one attempt of :data:`ATTEMPT_MS`). ``durable=False``: its commit is not
        synced to the disk (``synchronous = NORMAL``); it becomes durable with the next durable commit, which syncs
        the write-ahead log it follows in, and a crash of the process (not of the machine) keeps it anyway."""
        return Transaction(self, conn, limit, durable)


class Transaction:
    """:meth:`Writer.transaction`'s context manager (a class, not a generator: the engine opens one per message)."""

    __slots__ = ("conn", "durable", "limit", "savepoint", "writer")

    def __init__(self, writer: Writer, conn: sqlite3.Connection, limit: float | None, durable: bool) -> None:
        self.writer, self.conn, self.limit, self.durable = writer, conn, limit, durable
        self.savepoint: str | None = None

    def __enter__(self) -> None:
        asked = time.monotonic()
        writer, conn = self.writer, self.conn
        writer.acquire()
        try:
            if conn.in_transaction:
                self.savepoint = f"pxp_{threading.get_ident()}_{time.monotonic_ns()}"
                conn.execute(f'SAVEPOINT "{self.savepoint}"')
                return
            if not self.durable:
                conn.execute("PRAGMA synchronous = NORMAL")
            try:
                begin(conn, asked, self.limit)
            except BaseException:
                if not self.durable:
                    conn.execute("PRAGMA synchronous = FULL")
                raise
            writer.waits.append(time.monotonic() - asked)
        except BaseException:
            writer.release()
            raise

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        conn = self.conn
        try:
            if self.savepoint is not None:
                if kind is None:
                    conn.execute(f'RELEASE "{self.savepoint}"')
                elif conn.in_transaction:  # an error such as a trigger's RAISE(ROLLBACK) may have ended it already
                    conn.execute(f'ROLLBACK TO "{self.savepoint}"')
                    conn.execute(f'RELEASE "{self.savepoint}"')
                return
            try:
                if kind is None:
                    conn.execute("COMMIT")
                elif conn.in_transaction:
                    conn.execute("ROLLBACK")
            except BaseException:
                if conn.in_transaction:  # the commit failed (the disk full, say): none of it is kept
                    conn.execute("ROLLBACK")
                raise
            finally:
                if not self.durable:
                    conn.execute("PRAGMA synchronous = FULL")
        finally:
            self.writer.release()


def begin(conn: sqlite3.Connection, asked: float | None = None, limit: float | None = None) -> None:
    """``BEGIN IMMEDIATE`` on ``conn`` (a writer's connection: its busy timeout is :data:`ATTEMPT_MS`), asked again
    while another connection holds the write lock, for ``limit`` (:func:`wait_limit`) seconds from ``asked`` (now);
    then the lock error, saying how long it waited.

    Each attempt lets SQLite wait with its own backoff (its sleeps grow from 1 ms to 25 ms) for :data:`ATTEMPT_MS`,
    then asks again at once. Left to SQLite for longer, a waiter's sleeps grow to 100 ms, and writers that ask later,
    sleeping 1 or 2 ms, take the lock before it: under a steady stream of writers its wait grew to seconds.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
        return
    except sqlite3.OperationalError as exc:
        if not is_busy(exc):
            raise
    asked_ = time.monotonic() if asked is None else asked
    limit_ = wait_limit() if limit is None else limit

    def attempt() -> None:
        left = int((limit_ - (time.monotonic() - asked_)) * 1000)
        if left >= ATTEMPT_MS:
            conn.execute("BEGIN IMMEDIATE")
            return
        conn.execute(f"PRAGMA busy_timeout = {max(0, left)}")  # the last attempt ends at the limit
        try:
            conn.execute("BEGIN IMMEDIATE")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {ATTEMPT_MS}")

    retrying(attempt, asked_, limit_, pause=_PAUSE)


def retrying(step: Callable[[], T], asked: float | None = None, limit: float | None = None, *, pause: float = 0.01) -> T:
    """``step()``, done again while SQLite says another connection holds the lock it needs, for ``limit``
    (:func:`wait_limit`) seconds from ``asked`` (now), ``pause`` seconds apart (doubling up to 1 s unless it is
    :data:`_PAUSE`, with jitter); then the lock error, saying how long it waited."""
    asked = time.monotonic() if asked is None else asked
    limit = wait_limit() if limit is None else limit
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            waited = time.monotonic() - asked
            if waited + pause > limit:
                raise _waited_too_long(exc, waited) from None
        time.sleep(pause * random.uniform(0.5, 1.0))  # jitter, so that waiters do not ask in step
        if pause != _PAUSE:
            pause = min(pause * 2, _LONGEST_PAUSE)


def _waited_too_long(exc: sqlite3.OperationalError, waited: float) -> sqlite3.OperationalError:
    """SQLite's lock error, its text saying how long pxp waited (its code and name kept, for ``access.describe_error``)."""
    error = sqlite3.OperationalError(f"{exc}; pxp waited {waited:.1f} s for it")
    for name in ("sqlite_errorcode", "sqlite_errorname"):
        if hasattr(exc, name):
            setattr(error, name, getattr(exc, name))
    return error


class WriterDatabase(sqlite_utils.Database):
    """sqlite-utils' ``Database`` on a writer's connection: every statement under the :class:`Writer`'s lock, every
    transaction ``BEGIN IMMEDIATE`` (see the module's note)."""

    def __init__(self, conn: sqlite3.Connection, writer: Writer) -> None:
        self.writer = writer
        super().__init__(conn)

    @contextmanager
    def atomic(self) -> Iterator[WriterDatabase]:
        with self.writer.transaction(self.conn):
            yield self

    def begin(self) -> None:
        raise TypeError("a blackboard's transactions are begun by atomic() (BEGIN IMMEDIATE, under the writer's lock)")

    def execute(self, sql: str, parameters: Sequence | dict[str, Any] | None = None) -> sqlite3.Cursor:
        writer = self.writer
        writer.acquire()
        try:
            if self.conn.in_transaction:
                return super().execute(sql, parameters)
            word = _first_word(sql)
            if word in _CONTROL:
                raise TypeError(f"{word}: a blackboard's transactions are begun by atomic() (BEGIN IMMEDIATE)")
            if word in _BARE:  # a read meeting a lock (another's recovery of the WAL, say) is asked again too
                return retrying(lambda: sqlite_utils.Database.execute(self, sql, parameters), pause=_PAUSE)
            with self.atomic():
                return super().execute(sql, parameters)
        finally:
            writer.release()

    def executescript(self, sql: str) -> sqlite3.Cursor:
        with self.atomic():  # in a transaction, sqlite-utils runs the statements one by one (no implicit COMMIT)
            return super().executescript(sql)

    def close(self) -> None:
        """Close the connection once no statement of another thread runs on it (closing under one crashes SQLite)."""
        with self.writer.held():
            super().close()

    def query(self, sql: str, params: Sequence | dict[str, Any] | None = None) -> Iterator[dict]:  # type: ignore[override]
        with self.writer.held():
            if self.conn.in_transaction:
                return super().query(sql, params)
            return retrying(lambda: sqlite_utils.Database.query(self, sql, params), pause=_PAUSE)
