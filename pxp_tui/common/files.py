"""Folders and files pxp makes for the user's output (exports, reports, the blackboard's folder): made with the
user's umask, never writable by everyone, and all or nothing.

- :func:`make_folder` makes a folder and its missing parents, mode ``0o775`` less the umask (so never
  world-writable, even under ``umask 000``), and says which it made.
- :func:`output_folder` gives a private folder to write a command's files into (beside their destination,
  so on the same file system); when the block ends they are made world-unwritable and renamed into the
  destination, each replacing the file of that name. If the block fails (a full disk, say), every file
  written is removed, the folders made for them too, and the files that were there before are untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: the most a folder pxp makes may allow (the umask takes away more): never written by everyone
FOLDER_MODE = 0o775
#: permission bits taken from every file pxp writes for the user
NOT_WORLD_WRITABLE = ~stat.S_IWOTH


def make_folder(path: Path) -> list[Path]:
    """Make ``path`` and its missing parents (mode :data:`FOLDER_MODE` less the umask); the folders made, outermost
    first. A ``path`` that exists is left as it is; one that is not a folder raises ``NotADirectoryError``."""
    missing = []
    here = path
    while not here.exists():
        if here.is_symlink():  # a dangling link: mkdir would fail on it below, with the link's name
            break
        missing.append(here)
        if here == here.parent:
            break
        here = here.parent
    made = []
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # made meanwhile by someone else: used as it is
            continue
        made.append(folder)
    if not path.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(path))
    return made


@contextlib.contextmanager
def output_folder(out: Path) -> Iterator[Path]:
    """A private folder in ``out`` for the block to write files into, moved into ``out`` when it ends; nothing of
    them left in ``out`` if it fails (see the module's note)."""
    made = make_folder(out)
    partial = Path(tempfile.mkdtemp(dir=out, prefix=".pxp-partial-"))
    try:
        yield partial
        for written in sorted(partial.iterdir()):
            os.chmod(written, stat.S_IMODE(written.stat().st_mode) & NOT_WORLD_WRITABLE)
            os.replace(written, out / written.name)
        partial.rmdir()
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):  # a folder someone put other files in meanwhile stays
                folder.rmdir()
        raise


def describe(exc: OSError) -> str:
    """An OSError in the user's words: "the disk is full (No space left on device)"."""
    meaning = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up", errno.EROFS: "the disk is read-only"}
    reason = exc.strerror or str(exc)
    found = meaning.get(exc.errno or 0)
    return f"{found} ({reason})" if found else reason
