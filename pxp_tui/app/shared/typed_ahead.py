"""Keys typed before the app reads the keyboard: kept, then handed to the app first, in order.

Before Textual starts, pxp asks the terminal about graphics (``app/picture/graphics.py``) and reads its answers
from the keyboard's stream, where the keys typed meanwhile come too: the probe keeps them here (:func:`keep`)
instead of dropping them. From the probe on the terminal stays as Textual will want it (no echo, no line editing:
:func:`hold`), so that what is typed while the app loads is neither shown on the screen nor edited by the line
discipline; Textual's driver gets the settings from before (:func:`original`) to restore when the app ends.
:func:`driver_class` wraps the app's driver so that its keyboard thread parses the kept keys before anything
it reads itself.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

try:
    import termios
    import tty
except ImportError:  # pragma: no cover - Windows: no termios
    termios = None  # type: ignore[assignment]
    tty = None  # type: ignore[assignment]

_lock = threading.Lock()
_typed: list[str] = []
#: the terminal's settings before :func:`hold`, and its descriptor; None while not held
_held: tuple[int, list[Any]] | None = None


def hold(fd: int) -> bool:
    """Put the terminal at ``fd`` in the mode Textual reads keys in (no echo, no line editing, no flow control, a
    return kept a return: ``\\r``, not the ``\\n`` the line discipline makes of it, which Textual reads as ctrl+j) until
    the app's driver takes it over, keeping its settings for the driver to restore. ctrl+c still interrupts the
    loading. False where it is no terminal."""
    global _held
    if termios is None or _held is not None:
        return _held is not None
    try:
        before = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[tty.LFLAG] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
        mode[tty.IFLAG] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        mode[tty.CC][termios.VMIN], mode[tty.CC][termios.VTIME] = 1, 0
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except termios.error:
        return False
    _held = (fd, before)
    return True


def original() -> list[Any] | None:
    """The terminal's settings from before :func:`hold`, or None if it was not held."""
    return None if _held is None else _held[1]


def release() -> None:
    """Give the terminal its settings back (when no app took it over: an error before it started)."""
    global _held
    if _held is not None and termios is not None:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(_held[0], termios.TCSANOW, _held[1])
    _held = None


def keep(text: str) -> None:
    """Keep ``text``, typed before the app reads the keyboard (read by the terminal probe)."""
    if text:
        with _lock:
            _typed.append(text)


def take() -> str:
    """Everything kept so far, once (the next call returns what was kept since). A newline is taken for the return
    key: typed before pxp set the terminal's mode (while the shell started it), a return reached it as a newline,
    which the line discipline made of it then (Textual would read ctrl+j)."""
    with _lock:
        text = "".join(_typed)
        _typed.clear()
    return text.replace("\n", "\r")


def driver_class(base: type[Any]) -> type[Any]:
    """``base`` (Textual's terminal driver) with the kept keys handed to the app before what it reads itself,
    and the terminal's settings from before :func:`hold` restored when the app ends."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # pragma: no cover - Windows
        return base
    if not issubclass(base, LinuxDriver):
        return base  # not a terminal's (the browser's, a test's): nothing was held nor read

    from pxp_tui.app.shared.textual_internals import terminal_events

    class TypedAheadDriver(base):
        def start_application_mode(self) -> None:
            super().start_application_mode()
            before = original()
            if before is not None:
                self.attrs_before = before  # read by Textual when the app ends: the terminal as it was before pxp
                _forget()

        def run_input_thread(self) -> None:
            for event in terminal_events(take()):
                self.process_message(event)
            super().run_input_thread()

    TypedAheadDriver.__name__ = TypedAheadDriver.__qualname__ = f"TypedAhead{base.__name__}"
    return TypedAheadDriver


def _forget() -> None:
    global _held
    _held = None
