"""Storing a dataset (``pxp import``, a task's demo) beside runs that write the same file.

A large import must not hold the file's write lock for long: every other writer (a run committing its next message)
waits for it, under a busy timeout of five seconds. So it is written in short transactions:

1. the pictures, :data:`CHUNK_BYTES` at a time, each chunk read from disk and measured before its transaction;
2. then the dataset and all its instances in one transaction (text only: about a second per 50,000 rows), checked
   again as the writer (another process may have imported the same name meanwhile).

Until step 2 commits no reader sees any of it: a picture nothing refers to is not shown anywhere. If anything fails
(the disk fills, a picture changed since it was checked, the name was taken meanwhile), the pictures this import
added are removed again and the error says nothing was imported. A ``kill -9`` between the steps leaves the pictures
of step 1 in the file, unused.

Inside a transaction already open (a run's demo, imported with the run) the dataset is stored in that transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from io import BytesIO
from typing import TYPE_CHECKING, Any

from pxp_tui.blackboard import access
from pxp_tui.blackboard.errors import BlackboardError, WriteError
from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import ImportProgress

if TYPE_CHECKING:
    from pxp_tui.blackboard.store import Blackboard

#: bytes of pictures written per transaction (one picture larger than this goes alone)
CHUNK_BYTES = 4 * 2**20
_INSTANCE_COLUMNS = ("dataset", "key", "split", "input", "image_sha", "reference_prediction", "reference_explanation", "meta")
_PICTURE = "INSERT OR IGNORE INTO images (sha256, mime, width, height, data) VALUES (?, ?, ?, ?, ?)"
#: a picture this import added, removed again if nothing refers to it
_FORGET = "DELETE FROM images WHERE sha256 = ?1 AND NOT EXISTS (SELECT 1 FROM instances WHERE image_sha = ?1)"


def image_size(data: bytes) -> tuple[int | None, int | None]:
    try:
        from PIL import Image

        with Image.open(BytesIO(data)) as image:
            width, height = image.size
            return width, height
    except Exception:  # noqa: BLE001 - a size is a nicety; validation happens at import
        return None, None


def store(
    board: Blackboard,
    name: str,
    task: str,
    rows: Sequence[DatasetRow],
    *,
    source: str,
    description: str,
    append: bool,
    progress: ImportProgress | None,
) -> None:
    """Store ``rows`` as dataset ``name`` (see the module's note); :class:`WriteError` if SQLite refuses a write."""
    added: list[str] = []  # the pictures this import stored
    try:
        if board.db.conn.in_transaction:
            with board.transaction():
                shas = _store_pictures(board, rows, progress, added)
                _store_instances(board, name, task, rows, shas, source=source, description=description, append=append)
            return
        shas = _store_pictures(board, rows, progress, added)
        with board.transaction():
            _store_instances(board, name, task, rows, shas, source=source, description=description, append=append)
    except sqlite3.Error as exc:
        _forget(board, added)
        raise WriteError(f"{board.path or ':memory:'}: {access.describe_error(exc)}; nothing imported") from None
    except BaseException:
        _forget(board, added)
        raise
    if progress is not None:
        progress("storing", len(rows), len(rows))


def check_new(board: Blackboard, name: str, task: str, rows: Sequence[DatasetRow], *, append: bool) -> None:
    """BlackboardError if ``name`` is taken (not ``append``), or (``append``) is another task's or has these keys."""
    if not append:
        if board.has_dataset(name):
            raise BlackboardError(f"a dataset named {name!r} already exists (add to it with --append)")
        return
    held = board.dataset_task(name)
    if held != task:
        raise BlackboardError(f"dataset {name!r} is for the {held} task, not {task}")
    keys = {r[0] for r in board.db.execute("SELECT key FROM instances WHERE dataset = ?", [name])}
    clash = [row.key for row in rows if row.key in keys]
    if clash:
        listed = ", ".join(repr(k) for k in clash[:5]) + (" ..." if len(clash) > 5 else "")
        raise BlackboardError(f"dataset {name!r} already has instances with the keys {listed}")


def _chunks(rows: Sequence[DatasetRow], shas: dict[int, str]) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
    """(rows done, pictures) of at most :data:`CHUNK_BYTES` each: read from disk (checked against the hash taken when the
    file was read) and measured here, before any transaction; each row's picture hash goes into ``shas``."""
    chunk: list[tuple[Any, ...]] = []
    size = 0
    for done, row in enumerate(rows, start=1):
        data = row.image_bytes()
        if data is None:
            continue
        sha = shas[done - 1] = row.stored_sha256(data)  # the file's, checked by image_bytes(), unless converted
        width, height = image_size(data)
        chunk.append((sha, row.image_mime, width, height, data))
        size += len(data)
        del data
        if size >= CHUNK_BYTES:
            yield done, chunk
            chunk.clear()  # written: let go of its pictures before the next are read (the caller holds the list)
            size = 0
    if chunk:
        yield len(rows), chunk


def _store_pictures(
    board: Blackboard, rows: Sequence[DatasetRow], progress: ImportProgress | None, added: list[str]
) -> dict[int, str]:
    """Write the rows' pictures, a chunk per transaction (or in the caller's); row index -> its picture's hash."""
    shas: dict[int, str] = {}
    for done, chunk in _chunks(rows, shas):
        with board.transaction():
            for picture in chunk:
                if board.db.conn.execute(_PICTURE, picture).rowcount:
                    added.append(picture[0])
        if progress is not None:
            progress("storing", done, len(rows))
    return shas


def _store_instances(
    board: Blackboard,
    name: str,
    task: str,
    rows: Sequence[DatasetRow],
    shas: dict[int, str],
    *,
    source: str,
    description: str,
    append: bool,
) -> None:
    """The dataset's row and its instances, in the caller's transaction (as the writer: checked again first)."""
    from pxp_tui.blackboard.store import now

    check_new(board, name, task, rows, append=append)
    db = board.db
    if append:
        db.execute("UPDATE datasets SET source = source || '; ' || ? WHERE name = ?", [source, name])
    else:
        db.execute(
            "INSERT INTO datasets (name, task, source, description, created_at) VALUES (?, ?, ?, ?, ?)",
            [name, task, source, description, now()],
        )
    values = (
        (
            name,
            row.key,
            row.split,
            row.input,
            shas.get(index) or None,
            row.reference_prediction,
            row.reference_explanation,
            json.dumps(dict(row.meta), ensure_ascii=False),
        )
        for index, row in enumerate(rows)
    )
    marks = ", ".join("?" * len(_INSTANCE_COLUMNS))
    db.conn.executemany(f"INSERT INTO instances ({', '.join(_INSTANCE_COLUMNS)}) VALUES ({marks})", values)


def _forget(board: Blackboard, added: Sequence[str]) -> None:
    """Remove the pictures this import added that nothing refers to (an import that failed after storing them)."""
    if not added:
        return
    try:
        with board.transaction():
            board.db.conn.executemany(_FORGET, [(sha,) for sha in added])
    except sqlite3.Error:  # the disk is full, say: the pictures stay, unused and unseen
        pass
