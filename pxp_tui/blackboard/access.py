"""Whether a blackboard file can be read or written here, a read-only connection, and SQLite's errors in words.

Read-only files and folders: writers (``pxp run``, ``pxp import``, ``pxp merge``) are refused up
front with one line; readers (``pxp review``, ``metrics``, ``export``...) read such a file as it is.
SQLite reads a WAL file through a shared-memory file (``-shm``) beside it; in a folder where that
cannot be made, or for a file this user may not write (where SQLite would leave a read-only ``-shm``
behind that later blocks writers), a file with no ``-wal`` beside it (so no connection is open on
it) is read as ``immutable``, which creates nothing.

Only ``os`` calls and SQLite touch the file here: never an ``open()`` of it (closing a descriptor of
a file drops the process's locks on it).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

#: SQLite error names (and name prefixes) -> what happened, in the user's words
_MEANINGS = (
    ("SQLITE_FULL", "the disk is full"),
    ("SQLITE_READONLY_DIRECTORY", "its folder is read-only"),
    ("SQLITE_READONLY", "the file is read-only"),
    ("SQLITE_CANTOPEN", "the file cannot be opened"),
    ("SQLITE_BUSY", "another program holds the file locked"),
    ("SQLITE_LOCKED", "another program holds the file locked"),
    ("SQLITE_IOERR", "a disk error"),
    ("SQLITE_CORRUPT", "the file is damaged"),
    ("SQLITE_NOTADB", "not a SQLite file"),
    ("SQLITE_PERM", "permission denied"),
)


def describe_error(exc: Exception) -> str:
    """One line saying what went wrong, then SQLite's own words: "the disk is full (database or disk is full)"."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).strip() or type(exc).__name__
    for prefix, meaning in _MEANINGS:
        if name.startswith(prefix):
            return f"{meaning} ({text})"
    return text


def writable(path: Path) -> bool:
    """Whether this user may write ``path`` and make files beside it (SQLite's ``-wal`` and ``-shm``)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def problem(path: Path, *, write: bool) -> str | None:
    """Why the blackboard at ``path`` cannot be opened as asked (one line), or None.

    ``path`` need not exist when writing: then it is the folder that must be writable (or the
    nearest one that exists, where the missing ones will be made).
    """
    if path.exists():
        if not os.access(path, os.R_OK):
            return f"{path} cannot be read (permission denied)"
        if not write:
            return None
        if not os.access(path, os.W_OK):
            return (
                f"{path} is read-only, and this command writes to it "
                "(pxp review, pxp metrics and pxp export still read it as it is)"
            )
        folder = path.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            return (
                f"{path}: its folder {folder} is read-only, and SQLite writes its journal ({path.name}-wal) beside the file "
                "(pxp review, pxp metrics and pxp export still read it as it is)"
            )
        return None
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if write and not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot make {path}: the folder {folder} is read-only"
    return None


def readonly_uri(path: Path) -> str:
    """The URI SQLite opens ``path`` read-only by, changing nothing in its folder (see the module's note)."""
    # as_uri() escapes what a URI would read otherwise ('#', '?', '%' in a file name)
    uri = f"{path.resolve().as_uri()}?mode=ro"
    wal = path.with_name(path.name + "-wal")
    if not wal.exists() and not writable(path):
        uri += "&immutable=1"
    return uri


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path`` that changes nothing in its folder (see the module's note)."""
    return sqlite3.connect(readonly_uri(path), uri=True, check_same_thread=False)
