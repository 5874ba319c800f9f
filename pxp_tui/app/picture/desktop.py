"""Opening a picture in the desktop's image viewer, when there is a desktop.

The picture (an X-ray's original file, or a molecule drawn large by RDKit) is written to a file in a
folder of the user's own under the temporary directory, then opened with ``xdg-open`` (Linux, with
``DISPLAY`` or ``WAYLAND_DISPLAY`` set) or ``open`` (macOS), without waiting for the viewer. With no
desktop (an ssh session, a console), the message says why, and where the file is, so that it can be
copied (``scp host:path .``). :func:`viewer_command` is the decision alone, testable without a viewer.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import socket
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


def folder() -> Path:
    """Where pictures are written: a folder of this user's own under the temporary directory."""
    try:
        user = os.getlogin()
    except OSError:
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    path = Path(tempfile.gettempdir()) / f"pxp-pictures-{re.sub(r'[^A-Za-z0-9_.-]', '_', user)}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def write(data: bytes, name: str, where: Path | None = None) -> Path:
    """``data`` (an image Pillow reads) written as ``name`` plus the extension of its format; the file's path."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        kind = (image.format or "png").lower()
    suffix = {"jpeg": ".jpg"}.get(kind, f".{kind}")
    path = (where or folder()) / (re.sub(r"[^A-Za-z0-9_.#-]+", "_", name).strip("_") + suffix)
    path.write_bytes(data)
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
    path = write(data, name, where)
    command = viewer_command(path, env=env, platform=platform, which=which)
    if isinstance(command, str):
        host = socket.gethostname()
        return Outcome(False, f"{command}. The picture is in {path} (copy it with: scp {host}:'{path}' .)", path)
    try:
        opener(command)
    except OSError as exc:
        return Outcome(False, f"Could not run {command[0]}: {exc}. The picture is in {path}", path)
    return Outcome(True, f"Opened in the image viewer: {path}", path)
