"""Which runs are being written now: a lock per run, held on the blackboard file itself, that dies with its process.

A process driving run ``R`` holds an exclusive lock on one byte of the blackboard file, at :data:`RUN_LOCKS` ``+ R``:
64 TiB in, far from the bytes SQLite locks (1 GiB in, 512 bytes; its WAL locks are on the ``-shm`` file), and past
any byte SQLite reads or writes (the locks are advisory: they guard nothing but each other). The kernel lets go of
the lock when the process ends, however it ends (``kill -9`` and power loss included), so a run whose status says
``running`` while nobody holds its byte was interrupted. A copy of the file elsewhere, or runs copied by ``pxp
merge``, have no writer: they are shown interrupted too. Two processes cannot drive one run at once: the second is
refused. There is nothing beside the file to delete, and no file is left in the user's folder.

Why this lock, on Linux: an open file description lock (``F_OFD_SETLK``, Linux 3.15 and later). A classic POSIX
record lock (``lockf``) belongs to the process, and closing *any* descriptor of the file drops every one the
process holds on it; SQLite opens and closes descriptors of the blackboard whenever a connection comes and goes
(the app's readers do so all the time), so such a lock on the blackboard would vanish under the run it guards. A
lock of an open file description goes only when the last descriptor of that description is closed. ``flock`` has
that property too, but locks the whole file, and on BSD and macOS it is the same lock as SQLite's ``fcntl`` ones.
A SQLite-level lock (a row, a table) does not die with its process. The same rule constrains the descriptor the
lock is taken on: closing it drops SQLite's own POSIX locks held by this process on the file (see
:meth:`pxp_tui.blackboard.store.Blackboard.open`). So it is opened once per file, when the first blackboard of this
process on it opens, shared by all of them, and closed only when the last one closes: then no connection of this
process is open on the file, and SQLite holds no lock here to lose.

Elsewhere (no OFD locks: macOS, the BSDs, older kernels) the run's byte is locked, with ``lockf``, in a file
beside the blackboard, ``<blackboard>.lock``, made by writers only; deleting it while a run is driven lets a second
process drive it too. On Windows every ``running`` run is taken as live. A file system without record locks
(``ENOLCK``) drives the run unlocked (readers cannot tell either).
"""

from __future__ import annotations

import errno
import os
import struct
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.engine import RunStatus

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no record locks; every running run is taken as live
    fcntl = None  # type: ignore[assignment]

#: the status a run shows when it says ``running`` but no process is writing it
INTERRUPTED = RunStatus.INTERRUPTED.value
_RUNNING = RunStatus.RUNNING.value
#: the byte of run 0's lock in the blackboard file (run R: this + R)
RUN_LOCKS = 1 << 46
#: ``struct flock`` of 64-bit Linux: type, whence, start, length, pid (0 for OFD locks), padding
_FLOCK = "hhqqi4x"
#: whether this system has open file description locks (else the lock file beside the blackboard)
OFD = fcntl is not None and hasattr(fcntl, "F_OFD_SETLK") and sys.maxsize > 2**32

_BUSY = (errno.EACCES, errno.EAGAIN)


@dataclass
class _Handle:
    """This process's descriptor for one blackboard's run locks, shared by its blackboards on the file."""

    users: int = 0  # blackboards of this process open on the file
    fd: int | None = None
    writable: bool = False
    held: set[int] = field(default_factory=set)  # runs this process is driving
    spare: list[int] = field(default_factory=list)  # a read-only descriptor replaced by a writable one: kept open


_guard = threading.Lock()
_handles: dict[str, _Handle] = {}  # the blackboard's resolved path -> its handle


def lock_file(board_file: Path) -> Path:
    """Where the run locks are taken: the blackboard itself, or (without OFD locks) the file beside it."""
    return board_file if OFD else board_file.with_name(board_file.name + ".lock")


def _key(board_file: Path) -> str:
    return str(board_file.resolve())


def attach(board_file: Path) -> None:
    """A blackboard of this process opened on ``board_file`` (call :func:`detach` when it closes)."""
    with _guard:
        _handles.setdefault(_key(board_file), _Handle()).users += 1


def detach(board_file: Path) -> None:
    """A blackboard of this process on ``board_file`` closed; with the last one, the descriptor is closed."""
    with _guard:
        key = _key(board_file)
        handle = _handles.get(key)
        if handle is None:
            return
        handle.users -= 1
        if handle.users <= 0:
            del _handles[key]
            for fd in [*handle.spare, *([handle.fd] if handle.fd is not None else [])]:
                os.close(fd)


def _descriptor(board_file: Path, *, write: bool) -> _Handle | None:
    """The handle with its descriptor open (for writing a lock if ``write``); None where there is nothing to lock
    (no lock file, for a reader, without OFD locks). Called under ``_guard``."""
    handle = _handles.setdefault(_key(board_file), _Handle())
    if handle.fd is not None and (handle.writable or not write):
        return handle
    target = lock_file(board_file)
    cloexec = getattr(os, "O_CLOEXEC", 0)
    if write:
        create = 0 if OFD else os.O_CREAT
        fd, writable = os.open(target, os.O_RDWR | create | cloexec, 0o644), True
    else:
        try:
            fd, writable = os.open(target, os.O_RDWR | cloexec), True
        except PermissionError:  # a read-only copy: testing for a lock needs reading only
            fd, writable = os.open(target, os.O_RDONLY | cloexec), False
        except FileNotFoundError:
            return None
    if handle.fd is not None:  # the read-only descriptor stays open: closing it would drop SQLite's locks
        handle.spare.append(handle.fd)
    handle.fd, handle.writable = fd, writable
    return handle


def _lock(fd: int, run_id: int, kind: int, *, test: bool = False) -> int:
    """Take (or with ``test``, look for a conflicting) lock ``kind`` on run ``run_id``'s byte; the kind found."""
    assert fcntl is not None
    if OFD:
        command = fcntl.F_OFD_GETLK if test else fcntl.F_OFD_SETLK
        found = fcntl.fcntl(fd, command, struct.pack(_FLOCK, kind, os.SEEK_SET, RUN_LOCKS + run_id, 1, 0))
        return int(struct.unpack(_FLOCK, found)[0])
    if test:  # lockf cannot look: a shared lock is refused while a writer holds the byte; taken, it goes at once
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, run_id)
        except OSError as exc:
            if exc.errno in _BUSY:
                return fcntl.F_WRLCK
            raise
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, run_id)
        return fcntl.F_UNLCK
    lockf = {fcntl.F_WRLCK: fcntl.LOCK_EX | fcntl.LOCK_NB, fcntl.F_UNLCK: fcntl.LOCK_UN}[kind]
    fcntl.lockf(fd, lockf, 1, run_id)
    return kind


@contextmanager
def writing(board_file: Path | None, run_id: int) -> Iterator[None]:
    """Hold run ``run_id``'s lock while the block drives it; BlackboardError if another engine does, or if the
    lock cannot be taken (the lock file cannot be made, where there is one)."""
    if board_file is None or fcntl is None:
        yield
        return
    attach(board_file)  # the descriptor stays open while the run is driven
    try:
        locked = _take(board_file, run_id)
    except BaseException:
        detach(board_file)
        raise
    try:
        yield
    finally:
        if locked is not None and locked.fd is not None:
            with _guard:
                locked.held.discard(run_id)
                _lock(locked.fd, run_id, fcntl.F_UNLCK)
        detach(board_file)


def _take(board_file: Path, run_id: int) -> _Handle | None:
    """Lock run ``run_id``: its handle, or None where the file system has no record locks."""
    assert fcntl is not None
    with _guard:
        try:
            handle = _descriptor(board_file, write=True)
        except OSError as exc:
            raise BlackboardError(f"cannot lock run {run_id} in {lock_file(board_file)}: {exc.strerror}") from None
        assert handle is not None and handle.fd is not None
        if run_id in handle.held:
            raise BlackboardError(f"run {run_id} is already being driven by this pxp")
        try:
            _lock(handle.fd, run_id, fcntl.F_WRLCK)
        except OSError as exc:
            if exc.errno in _BUSY:
                raise BlackboardError(f"run {run_id} is being written by another pxp process (close it there first)") from None
            return None  # no record locks on this file system: drive the run unlocked (readers cannot tell either)
        handle.held.add(run_id)
        return handle


def live(board_file: Path | None, run_ids: Iterable[int]) -> set[int]:
    """Those of ``run_ids`` that a living process is driving now."""
    run_ids = list(run_ids)
    if board_file is None or fcntl is None or not run_ids:
        return set(run_ids)  # in memory: only this process; no record locks: cannot tell
    attach(board_file)  # the descriptor is closed after, unless a blackboard of this process keeps it
    try:
        with _guard:
            return _live(board_file, run_ids)
    finally:
        detach(board_file)


def _live(board_file: Path, run_ids: list[int]) -> set[int]:
    assert fcntl is not None
    try:
        handle = _descriptor(board_file, write=False)
    except OSError:  # unreadable: cannot tell
        return set(run_ids)
    if handle is None or handle.fd is None:
        return set()
    found = set()
    for run_id in run_ids:
        if run_id in handle.held:
            found.add(run_id)
            continue
        try:
            if _lock(handle.fd, run_id, fcntl.F_WRLCK, test=True) != fcntl.F_UNLCK:
                found.add(run_id)
        except OSError:  # no record locks here: cannot tell, so taken as live
            found.add(run_id)
    return found


def shown_status(board_file: Path | None, rows: list[dict], key: str = "id") -> list[dict]:
    """``rows`` (of runs), their ``status`` ``running`` replaced by ``interrupted`` where no process writes the run."""
    running = [row[key] for row in rows if row.get("status") == _RUNNING]
    if running:
        alive = live(board_file, running)
        for row in rows:
            if row.get("status") == _RUNNING and row[key] not in alive:
                row["status"] = INTERRUPTED
    return rows
