"""Real terminal emulators on a private X server: ``Xvfb``, ``xterm -ti vt340`` (Sixel) and kitty (its
graphics protocol), keys typed by ``xdotool``, and screenshots of the terminal's window (``xwd``, read with
Pillow). Used by the real-pixels tests (tests/real/test_real_terminals.py) and scripts/screenshots.py.

Display numbers come from ``PXP_TEST_DISPLAYS`` (``first-last``, default ``41-49``): the first free one is taken.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pxp_harness.waiting import poll

ROOT = Path(__file__).resolve().parent.parent
#: the terminals' background: no grey, so that a grey pixel is a picture's (an X-ray is grey throughout)
BACKGROUND = (16, 48, 96)
#: the Xvfb screen, large enough for 160x48 cells of the font below
SCREEN = (1600, 1000)
FONT = ("DejaVu Sans Mono", 10)


def missing(*programs: str) -> list[str]:
    return [p for p in programs if shutil.which(p) is None]


def displays() -> range:
    first, _, last = os.environ.get("PXP_TEST_DISPLAYS", "41-49").partition("-")
    return range(int(first), int(last or first) + 1)


def _lock_owner(number: int) -> int | None:
    """The pid in display ``number``'s lock file (the X server that holds it), if it can be read."""
    try:
        return int(Path(f"/tmp/.X{number}-lock").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


class XServer:
    """A private ``Xvfb`` (the first free display of :func:`displays`)."""

    def __init__(self, size: tuple[int, int] = SCREEN) -> None:
        self.size = size
        self.process: subprocess.Popen[bytes] | None = None
        self.display = ""
        # what Xvfb said, for a failure's message (O_APPEND: reading it moves no write); open as long as this object
        self.stderr = tempfile.TemporaryFile("a+b")  # noqa: SIM115

    def start(self) -> XServer:
        for number in displays():
            if Path(f"/tmp/.X{number}-lock").exists():
                continue
            # -noreset: an X server resets when its last client leaves, and closes a client that was still connecting
            # then (xterm exits 1, "Can't open display"): xdpyinfo's probe below and xdotool's searches while the
            # terminal starts are such last clients
            process = subprocess.Popen(
                ["Xvfb", f":{number}", "-screen", "0", f"{self.size[0]}x{self.size[1]}x24", "-nolisten", "tcp", "-noreset"],
                stdout=subprocess.DEVNULL,
                stderr=self.stderr,
            )
            if self._ready(process, number):
                self.process, self.display = process, f":{number}"
                return self
        raise RuntimeError(f"no free X display among :{displays().start}-:{displays().stop - 1} (PXP_TEST_DISPLAYS)")

    @staticmethod
    def _ready(process: subprocess.Popen[bytes], number: int) -> bool:
        """Whether ``process`` serves display ``number``. Its lock file must name it: another test's Xvfb, started
        on the same free number a moment before, answers the display while this one is still on its way out."""

        def up() -> bool | None:
            if process.poll() is not None:
                return True  # it ended (the display is taken): the answer is known
            if _lock_owner(number) != process.pid:
                return None
            probe = subprocess.run(["xdpyinfo", "-display", f":{number}"], capture_output=True, check=False)
            return probe.returncode == 0 or None

        poll(up, f"Xvfb on :{number}", patience=30, step=0.25)
        return process.poll() is None

    def env(self) -> dict[str, str]:
        return {"DISPLAY": self.display}

    def said(self) -> str:
        """What the server has written on its stderr so far."""
        return _read(self.stderr)

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


class Terminal:
    """A terminal emulator window on ``server`` running ``command``, ``cols`` x ``rows`` cells."""

    def __init__(self, server: XServer, kind: str, command: Sequence[str], size: tuple[int, int], env: dict[str, str]) -> None:
        self.server, self.kind, self.size = server, kind, size
        cols, rows = size
        # set in the terminal, where the terminal sets its own TERM (xterm also drops COLORTERM from its environment)
        # without COLUMNS and LINES, which pytest-xdist's workers have (80 and 24): the app would read its size from
        # them, not from the terminal, and lay out at 80x24 in a window of another size
        # nor the 24-bit colours the in-process apps are given (conftest.py): the terminal's TERM decides
        command = [
            "env",
            "-u",
            "COLUMNS",
            "-u",
            "LINES",
            "-u",
            "TEXTUAL_COLOR_SYSTEM",
            *(f"{k}={v}" for k, v in env.items()),
            *command,
        ]
        colour = "#" + "".join(f"{c:02x}" for c in BACKGROUND)
        if kind == "xterm":
            argv = [
                "xterm", "-ti", "vt340", "-geometry", f"{cols}x{rows}+0+0", "-fa", FONT[0], "-fs", str(FONT[1]),
                "-bg", colour, "-fg", "white", "-bw", "0",
                "-xrm", "XTerm*numColorRegisters: 1024", "-xrm", "XTerm*maxGraphicSize: 4096x4096",
                "-e", *command,
            ]  # fmt: skip
            self.window_class = "XTerm"
        elif kind == "kitty":
            argv = [
                "kitty", "--config", "NONE", "-o", f"initial_window_width={cols}c", "-o", f"initial_window_height={rows}c",
                "-o", "remember_window_size=no", "-o", f"font_family={FONT[0]}", "-o", f"font_size={FONT[1]}",
                "-o", f"background={colour}", "-o", "window_padding_width=0", *command,
            ]  # fmt: skip
            self.window_class = "kitty"
        else:
            raise ValueError(kind)
        full_env = {**os.environ, **server.env(), "LIBGL_ALWAYS_SOFTWARE": "1"}  # kitty on Mesa's software OpenGL
        self.stderr = tempfile.TemporaryFile("a+b")  # noqa: SIM115  # what the terminal said, as the server's
        self.process = subprocess.Popen(argv, env=full_env, stdout=subprocess.DEVNULL, stderr=self.stderr)
        try:
            self.window = poll(self._window, f"the {kind} window", patience=60, step=0.25)
        except AssertionError as failure:
            said = self.describe()
            self.close()
            raise AssertionError(f"{failure}\n{said}") from failure

    def _xdotool(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["xdotool", *args], capture_output=True, text=True, check=False, env={**os.environ, **self.server.env()}
        )

    def describe(self) -> str:
        """The terminal, its display, font and geometry, how it ended if it did, and what it and its X server said."""
        code = self.process.poll()
        state = "running" if code is None else f"ended (exit code {code})"
        return (
            f"{self.kind} {state} on display {self.server.display or '?'} ({self.server.size[0]}x{self.server.size[1]}),"
            f" font {FONT[0]} {FONT[1]}, {self.size[0]}x{self.size[1]} cells"
            f"\n{self.kind}'s stderr: {_read(self.stderr) or '(nothing)'}\nXvfb's stderr: {self.server.said() or '(nothing)'}"
        )

    def _window(self) -> str | None:
        if self.process.poll() is not None:
            raise AssertionError(f"{self.kind} ended before its window showed")
        found = self._xdotool("search", "--onlyvisible", "--class", self.window_class).stdout.split()
        return found[0] if found else None

    @contextmanager
    def explained(self, folder: Path) -> Iterator[None]:
        """A failure inside also says what :meth:`describe` says, and where a screenshot taken then is (in ``folder``)."""
        try:
            yield
        except AssertionError as failure:
            shot = folder / f"{self.kind}-at-the-failure.png"
            try:
                self.screenshot().save(shot)
                where = f"the screen then: {shot}"
            except (OSError, ValueError, subprocess.CalledProcessError) as error:
                where = f"no screenshot: {error}"
            raise AssertionError(f"{failure}\n{self.describe()}\n{where}") from failure

    def keys(self, *keys: str) -> None:
        """Type ``keys`` (xdotool's names: ``f``, ``plus``, ``Escape``, ``ctrl+s``) into the terminal, focused
        (keys sent to a window instead, with XSendEvent, are ignored by xterm)."""
        self._xdotool("windowfocus", "--sync", self.window)
        for key in keys:
            self._xdotool("key", "--clearmodifiers", key)

    def screenshot(self) -> Any:
        """The terminal's window as a Pillow RGB image."""
        data = subprocess.run(
            ["xwd", "-id", self.window, "-silent"], capture_output=True, check=True, env={**os.environ, **self.server.env()}
        ).stdout
        return xwd_image(data)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _read(file: Any) -> str:
    file.seek(0)
    return file.read().decode(errors="replace").strip()


def xwd_image(data: bytes) -> Any:
    """An X window dump (``xwd``'s format, 24-bit TrueColor) as a Pillow RGB image."""
    from PIL import Image

    fields = struct.unpack(">25I", data[:100])
    header, width, height, byte_order, bits, line, colours = (fields[i] for i in (0, 4, 5, 7, 11, 12, 19))
    if bits != 32:
        raise ValueError(f"xwd: {bits} bits per pixel (a 24-bit display is expected)")
    start = header + colours * 12
    raw = "BGRX" if byte_order == 0 else "XRGB"
    return Image.frombuffer("RGB", (width, height), data[start : start + line * height], "raw", raw, line, 1).copy()


# -- what the screen shows ---------------------------------------------------------------------------------
#: the app's theme in these tests: its colours have no grey, so that the grey pixels are the X-ray's
THEME = "solarized-dark"


#: the least spread of grey levels in a region that is a picture: a window not drawn yet (all black) is not one
SPREAD = 32


def grey_regions(image: Any, spread: int = SPREAD) -> list[tuple[int, int, int, int, int]]:
    """The connected regions of grey pixels (R = G = B) whose grey levels span ``spread`` or more (by default a
    picture's), largest first: (pixels, left, top, right, bottom)."""
    import numpy
    from scipy import ndimage

    rgb = numpy.asarray(image).astype(int)
    grey = (rgb[..., 0] == rgb[..., 1]) & (rgb[..., 1] == rgb[..., 2])
    labels, count = ndimage.label(grey)
    labelled = range(1, count + 1)
    sizes = ndimage.sum_labels(grey, labels, labelled)
    levels = numpy.asarray(ndimage.maximum(rgb[..., 0], labels, labelled)) - numpy.asarray(
        ndimage.minimum(rgb[..., 0], labels, labelled)
    )
    regions = []
    for index, found in enumerate(ndimage.find_objects(labels)):
        if found is not None and levels[index] >= spread:
            rows, cols = found
            regions.append((int(sizes[index]), cols.start, rows.start, cols.stop, rows.stop))
    return sorted(regions, reverse=True)


Box = tuple[int, int, int, int]


def shown_picture(terminal: Terminal, wanted: Callable[[Box], bool], what: str) -> tuple[Any, Box]:
    """Wait until the terminal shows a grey picture whose box (left, top, right, bottom) is ``wanted``, the same
    in two screenshots in a row (drawn, not being drawn); the screenshot and the picture's box."""
    last: list[Any] = [None]

    def steady() -> tuple[Any, Box] | None:
        image = terminal.screenshot()
        regions = grey_regions(image)
        same = last[0] is not None and last[0].tobytes() == image.tobytes()
        last[0] = image
        if same and regions and wanted(regions[0][1:]):
            return image, regions[0][1:]
        return None

    return poll(steady, what, step=0.5)
