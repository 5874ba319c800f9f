"""The terminal given back whatever way the app ends: a watcher process restores it if the app dies unannounced.

Textual puts the terminal in raw mode, on the alternate screen, with the cursor hidden and mouse
reporting on, and restores it when the app leaves. A process killed by a signal it cannot handle
(SIGSEGV in native code, SIGABRT, SIGBUS, ``kill -9``) leaves it so: the shell's prompt invisible, keys
not echoed, mouse moves typed as text. Before Textual is imported, :func:`guard` forks a small watcher
that holds the read end of a pipe and the terminal's settings as they were. The app writes a goodbye on
the pipe once Textual has restored the terminal; if the pipe closes without one (the kernel closes it
when the process dies, however it dies), the watcher puts the settings back, leaves the alternate
screen, shows the cursor, turns mouse reporting off, and says in one line what happened.

The watcher is a fork of the process before Textual and the app are imported (about 1 ms); it closes
every other descriptor (the blackboard's, its lock file's) and ignores the terminal's signals.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

try:
    import termios
except ImportError:  # pragma: no cover - Windows: no fork, no termios
    termios = None  # type: ignore[assignment]

#: what undoes Textual's terminal modes: mouse reporting (1000, 1003, 1015, 1006, 1016), bracketed paste,
#: in-band resize and focus events off, line wrap on, the kitty keyboard protocol popped, the alternate
#: screen left, the cursor shown, colours reset
RESTORE = (
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l\x1b[?2004l\x1b[?2048l\x1b[?1004l\x1b[?7h"
    "\x1b[<u\x1b[?1049l\x1b[?25h\x1b[0m"
)

_GOODBYE = b"bye"


def guard(note: str = "") -> Callable[[], None]:
    """Watch this process's terminal; returns the goodbye to call once the app has restored it itself.

    ``note`` is added to the line the watcher writes if the app dies (what the user can do next).
    Does nothing (returns a no-op) where there is no terminal, or no ``fork``.
    """
    if termios is None or not hasattr(os, "fork") or not (os.isatty(0) and os.isatty(2)):
        return _nothing
    try:
        settings = termios.tcgetattr(0)
    except termios.error:
        return _nothing
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return _nothing
    if pid == 0:  # the watcher
        try:
            os.close(write_end)
            _watch(read_end, settings, note)
        finally:
            os._exit(0)
    os.close(read_end)

    def goodbye() -> None:
        try:
            os.write(write_end, _GOODBYE)
            os.close(write_end)
        except OSError:
            pass
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reap it if it has gone already; otherwise init does, once this process ends

    return goodbye


def _nothing() -> None:
    pass


def _watch(pipe: int, settings: list, note: str) -> None:
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT, signal.SIGTTOU, signal.SIGTSTP):
        signal.signal(signum, signal.SIG_IGN)  # the terminal's signals are the app's; SIGTTOU: restore from the background
    os.closerange(3, pipe)
    os.closerange(pipe + 1, _highest_fd())
    heard = b""
    while True:
        try:
            chunk = os.read(pipe, 16)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        heard += chunk
    if heard.startswith(_GOODBYE):
        return
    restore(settings)
    line = "pxp ended abruptly (a crash, or it was killed); the terminal is restored." + (f" {note}" if note else "")
    with contextlib.suppress(OSError):
        os.write(2, f"\r\n{line}\r\n".encode())


def restore(settings: list | None) -> None:
    """Put the terminal's ``settings`` back (tty mode) and undo what a full-screen app turned on."""
    if termios is not None and settings is not None:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(0, termios.TCSANOW, settings)
    with contextlib.suppress(OSError):
        os.write(2, RESTORE.encode())


def _highest_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover
        return 1024
