"""Which runs are being written now: a lock per run that dies with the process writing it.

A process driving run ``R`` holds an exclusive POSIX record lock on byte ``R`` of ``<blackboard>.lock``,
a file beside the blackboard: never on the blackboard itself, whose locks are SQLite's. The kernel
releases the lock when the process ends, however it ends (``kill -9`` and power loss included), so a
run whose status says ``running`` while nobody holds its byte was interrupted. A copy of the file
elsewhere, or runs copied by ``pxp merge``, have no writer: they are shown interrupted too. Two
processes cannot drive one run at once: the second is refused.

Within one process the lock file is opened once and never closed: on POSIX, closing any descriptor of
a file drops every lock the process holds on it, whichever descriptor took them. Readers that find
no lock file know no run of this blackboard is being written, and create nothing.
"""

from __future__ import annotations

import errno
import os
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

_BUSY = (errno.EACCES, errno.EAGAIN)


@dataclass
class _LockFile:
    fd: int
    writable: bool
    held: set[int] = field(default_factory=set)  # runs this process is driving


_guard = threading.Lock()
_files: dict[tuple[int, int], _LockFile] = {}  # (device, inode) -> the one descriptor kept for it


def lock_file(board_file: Path) -> Path:
    """The lock file of the blackboard at ``board_file``."""
    return board_file.with_name(board_file.name + ".lock")


def _lock_file(board_file: Path, *, create: bool) -> _LockFile | None:
    """This process's descriptor of the lock file (opened once, never closed); None if there is none
    and ``create`` is false. Called under ``_guard``."""
    target = lock_file(board_file)
    try:
        info = target.stat()
    except FileNotFoundError:
        info = None
    known = _files.get((info.st_dev, info.st_ino)) if info is not None else None
    if known is not None and (known.writable or not create):
        return known
    cloexec = getattr(os, "O_CLOEXEC", 0)
    try:
        if create:
            fd, writable = os.open(target, os.O_RDWR | os.O_CREAT | cloexec, 0o644), True
        else:
            try:
                fd, writable = os.open(target, os.O_RDWR | cloexec), True
            except PermissionError:  # a read-only copy: a shared lock needs reading only
                fd, writable = os.open(target, os.O_RDONLY | cloexec), False
    except FileNotFoundError:
        if create:
            raise
        return None
    info = os.fstat(fd)
    key = (info.st_dev, info.st_ino)
    known = _files.get(key)
    if known is None:
        known = _files[key] = _LockFile(fd, writable)
    elif writable and not known.writable:  # the read-only descriptor stays open: see the module's note
        known.fd, known.writable = fd, True
    return known


@contextmanager
def writing(board_file: Path | None, run_id: int) -> Iterator[None]:
    """Hold run ``run_id``'s lock while the block drives it; BlackboardError if another engine does, or
    if the lock file cannot be made (its folder is read-only: then so is the blackboard's WAL)."""
    if board_file is None or fcntl is None:
        yield
        return
    with _guard:
        try:
            lock = _lock_file(board_file, create=True)
        except OSError as exc:
            raise BlackboardError(f"cannot make {lock_file(board_file)}: {exc.strerror}") from None
        assert lock is not None
        if run_id in lock.held:
            raise BlackboardError(f"run {run_id} is already being driven by this pxp")
        try:
            fcntl.lockf(lock.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, run_id)
        except OSError as exc:
            if exc.errno in _BUSY:
                raise BlackboardError(f"run {run_id} is being written by another pxp process (close it there first)") from None
            lock = None  # no record locks on this file system: drive the run unlocked (readers cannot tell either)
        else:
            lock.held.add(run_id)
    try:
        yield
    finally:
        if lock is not None:
            with _guard:
                lock.held.discard(run_id)
                fcntl.lockf(lock.fd, fcntl.LOCK_UN, 1, run_id)


def live(board_file: Path | None, run_ids: Iterable[int]) -> set[int]:
    """Those of ``run_ids`` that a living process is driving now."""
    run_ids = list(run_ids)
    if board_file is None or fcntl is None or not run_ids:
        return set(run_ids)  # in memory: only this process; no record locks: cannot tell
    found = set()
    with _guard:
        try:
            lock = _lock_file(board_file, create=False)
        except OSError:  # unreadable: cannot tell
            return set(run_ids)
        if lock is None:
            return set()
        for run_id in run_ids:
            if run_id in lock.held:
                found.add(run_id)
                continue
            try:  # a shared lock is refused while a writer holds the byte; taken, it is let go at once
                fcntl.lockf(lock.fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, run_id)
            except OSError:  # held by a writer (or no record locks here: cannot tell, so taken as live)
                found.add(run_id)
            else:
                fcntl.lockf(lock.fd, fcntl.LOCK_UN, 1, run_id)
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
