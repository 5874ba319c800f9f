"""Opening a picture in the desktop's image viewer, when there is a desktop; in a new tab, in a browser.

The picture (an X-ray's original file, or a molecule drawn large by RDKit) is written to a file in a
private folder, then opened with ``xdg-open`` (Linux, with ``DISPLAY`` or ``WAYLAND_DISPLAY`` set) or
``open`` (macOS), without waiting for the viewer. With no desktop (an ssh session, a console), the message
says why, and where the file is, so that it can be copied (``scp host:path .``). :func:`viewer_command` is
the decision alone, testable without a viewer. In a browser tab (``pxp serve``), :func:`open_in_tab` sends the
picture to the browser instead, which opens it in a new tab.

The folder is ``pictures`` in the user's cache directory (``$XDG_CACHE_HOME/pxp-tui``, else
``~/.cache/pxp-tui`` on Linux; platformdirs' choice elsewhere); only if that cannot be made,
``pxp-pictures-<uid>`` in the temporary directory. Either is used only if it is a folder (not a symbolic
link) owned by this user that no one else may write; it is made, or kept, mode 0700, so that nobody else
reads the X-rays opened. A folder planted by someone else is refused (:class:`UnsafeFolderError`) and nothing
is written through it. Each file is written under a fresh name made with ``O_EXCL | O_NOFOLLOW``, mode 0600,
then renamed over the picture's name: a symbolic link found at that name is replaced, never followed.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the size a drawn picture (a molecule, a reaction) is written at
DRAWING_PIXELS = (1600, 1000)


@dataclass(frozen=True)
class Outcome:
    opened: bool
    message: str
    path: Path | None = None


def viewer_command(
    path: Path,
    *,
    env: Mapping[str, str] = os.environ,
    platform: str = sys.platform,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str] | str:
    """The command that opens ``path`` in the desktop's image viewer, or why there is none (a sentence)."""
    if platform == "darwin":
        return ["open", str(path)]
    if platform.startswith("win"):
        return ["explorer", str(path)]
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        over = " (an ssh session?)" if env.get("SSH_CONNECTION") or env.get("SSH_TTY") else ""
        return f"No desktop to open it on: neither DISPLAY nor WAYLAND_DISPLAY is set{over}"
    if which("xdg-open") is None:
        return "No xdg-open to open it with (install xdg-utils)"
    return ["xdg-open", str(path)]


def launch(command: Sequence[str]) -> None:
    """Start ``command`` detached from the terminal, without waiting for it (its exit is collected in a thread)."""
    process = subprocess.Popen(
        list(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    threading.Thread(target=process.wait, name="pxp-viewer", daemon=True).start()


class UnsafeFolderError(OSError):
    """The pictures folder is not this user's private folder: nothing is written through it (the message says why)."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def private(path: Path) -> Path:
    """``path`` if it is a folder of this user's that no one else may write, made mode 0700; else UnsafeFolderError.

    Checked with ``lstat``: a symbolic link is refused, wherever it points. On a system without user ids
    (Windows), a folder is taken as it is.
    """
    info = os.lstat(path)
    why = None
    if stat.S_ISLNK(info.st_mode):
        why = "is a symbolic link"
    elif not stat.S_ISDIR(info.st_mode):
        why = "is not a folder"
    elif _uid() is not None and info.st_uid != _uid():
        why = f"belongs to another user (uid {info.st_uid})"
    elif _uid() is not None and info.st_mode & 0o022:
        why = f"may be written by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    if why is not None:
        raise UnsafeFolderError(f"Pictures are not written to {path}: it {why}. Remove it, and pxp makes a private one.")
    if _uid() is not None and info.st_mode & 0o077:  # ours, but readable by others: the X-rays are not
        os.chmod(path, 0o700)
    return path


def _cache_folder() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pxp-tui", appauthor=False)) / "pictures"


def folder() -> Path:
    """Where pictures are written: ``pictures`` in the user's cache directory, else (if that cannot be made)
    ``pxp-pictures-<uid>`` in the temporary directory; either private (see :func:`private`)."""
    path = _cache_folder()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:  # something that is not a folder: private() says what
        pass
    except OSError:
        path = Path(tempfile.gettempdir()) / f"pxp-pictures-{_uid() if _uid() is not None else 'user'}"
        with contextlib.suppress(FileExistsError):  # made before (by this user, private() checks)
            path.mkdir(mode=0o700)
    return private(path)


def _write_new(path: Path, data: bytes) -> None:
    """``data`` at ``path``: written to a fresh file (``O_EXCL | O_NOFOLLOW``, 0600) beside it, then renamed over it."""
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def file_name(data: bytes, name: str) -> tuple[str, str]:
    """The file name for ``data`` (an image Pillow reads): ``name`` made safe plus its format's extension; and its MIME type."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        kind = (image.format or "png").lower()
    suffix = {"jpeg": ".jpg"}.get(kind, f".{kind}")
    return re.sub(r"[^A-Za-z0-9_.#-]+", "_", name).strip("_") + suffix, Image.MIME.get(kind.upper(), f"image/{kind}")


def write(data: bytes, name: str, where: Path | None = None) -> Path:
    """``data`` (an image Pillow reads) written as ``name`` plus the extension of its format; the file's path.

    UnsafeFolderError if the folder is not this user's private one.
    """
    path = private(where or folder()) / file_name(data, name)[0]
    _write_new(path, data)
    return path


def picture_bytes(task: Any, instance: Any, prediction: str | None = None) -> tuple[bytes | None, str]:
    """The picture to open outside, and a file name: the original image, or the task's drawing at a large size."""
    name = f"{instance.dataset}-{instance.key}"
    if prediction is not None:
        drawn = task.draw_prediction(instance, prediction, DRAWING_PIXELS)
        return (drawn if isinstance(drawn, bytes) else None), f"{name}-proposal"
    original = task.original_picture(instance)
    if original is not None:
        return original, name
    drawn = task.draw_instance(instance, DRAWING_PIXELS)
    return (drawn if isinstance(drawn, bytes) else None), name


def open_picture(
    task: Any,
    instance: Any,
    prediction: str | None = None,
    *,
    env: Mapping[str, str] = os.environ,
    platform: str = sys.platform,
    which: Callable[[str], str | None] = shutil.which,
    opener: Callable[[Sequence[str]], None] = launch,
    where: Path | None = None,
) -> Outcome:
    """Write the picture to a file and open it in the desktop's viewer; the outcome says what happened and where."""
    data, name = picture_bytes(task, instance, prediction)
    if data is None:
        return Outcome(False, "There is no picture to open.")
    try:
        path = write(data, name, where)
    except OSError as exc:  # a planted folder, a full disk...: one line, nothing opened
        return Outcome(False, str(exc) if isinstance(exc, UnsafeFolderError) else f"Could not write the picture: {exc}")
    command = viewer_command(path, env=env, platform=platform, which=which)
    if isinstance(command, str):
        copy = shlex.join(["scp", f"{socket.gethostname()}:{path}", "."])
        return Outcome(False, f"{command}. The picture is in {path} (copy it with: {copy})", path)
    try:
        opener(command)
    except OSError as exc:
        return Outcome(False, f"Could not run {command[0]}: {exc}. The picture is in {path}", path)
    return Outcome(True, f"Opened in the image viewer: {path}", path)


def open_in_tab(task: Any, instance: Any, prediction: str | None, deliver: Callable[[io.BytesIO, str, str], object]) -> Outcome:
    """In a browser tab (``pxp serve``): the picture sent to the browser, which opens it in a new tab at full resolution.

    ``deliver(file, file_name, mime_type)`` sends it (the app's ``deliver_binary``, ``open_method="browser"``); nothing
    is written on the server's disk.
    """
    data, name = picture_bytes(task, instance, prediction)
    if data is None:
        return Outcome(False, "There is no picture to open.")
    shown_as, mime_type = file_name(data, name)
    deliver(io.BytesIO(data), shown_as, mime_type)
    return Outcome(True, f"Opened in a new browser tab: {shown_as} (if no tab opened, allow pop-ups for this page)")
