"""The terminal given back whatever way the app ends: a watcher process restores it if the app dies unannounced.

Textual puts the terminal in raw mode, on the alternate screen, with the cursor hidden and mouse
reporting on, and restores it when the app leaves. A process killed by a signal it cannot handle
(SIGSEGV in native code, SIGABRT, SIGBUS, ``kill -9``) leaves it so: the shell's prompt invisible, keys
not echoed, mouse moves typed as text. Before Textual is imported, :func:`guard` starts a small watcher
that holds the read end of a pipe and the terminal's settings as they were. The app writes a goodbye on
the pipe once Textual has restored the terminal; if the pipe closes without one (the kernel closes it
when the process dies, however it dies), the watcher puts the settings back, leaves the alternate
screen, shows the cursor, turns mouse reporting off, and says in one line what happened. For the fatal
signals Python reports (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) its report goes down the pipe first
(:mod:`faulthandler`), so the watcher restores the terminal while the process is still dying, before the
shell prints its prompt; the report is kept in the user's cache for a bug report.

The watcher is a process of its own, spawned from a thread while the app goes on loading (the app's
cost is under a millisecond; a fork would make the app copy every page it writes afterwards), in its
own session (none of the terminal's signals reach it), holding no descriptor but the pipe and the terminal.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

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
    Does nothing (returns a no-op) where there is no terminal.
    """
    if termios is None or not (os.isatty(0) and os.isatty(2)):
        return _nothing
    try:
        settings = termios.tcgetattr(0)
    except termios.error:
        return _nothing
    read_end, write_end = os.pipe()
    watchers: list[subprocess.Popen[bytes]] = []

    def spawn() -> None:  # in a thread: the app goes on loading while the watcher's process starts
        root = str(Path(__file__).resolve().parents[3])  # this package's, whether installed or not
        try:
            watchers.append(
                subprocess.Popen(
                    [sys.executable, "-S", "-c", _WATCHER, root, str(read_end), repr(settings), note],
                    stdin=None,  # the terminal, whose settings it puts back
                    stdout=subprocess.DEVNULL,
                    stderr=None,  # the terminal, where it writes
                    pass_fds=(read_end,),
                    start_new_session=True,  # none of the terminal's signals: they are the app's
                )
            )
        except OSError:
            pass  # no watcher: the terminal is as safe as it was without one
        finally:
            os.close(read_end)  # what the app writes meanwhile waits in the pipe

    starting = threading.Thread(target=spawn, name="pxp-terminal-watcher", daemon=True)
    starting.start()
    # SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL: Python's fatal-error report goes to the watcher, which
    # restores the terminal while this process is still dying (before the shell prints its prompt)
    faulthandler.enable(file=write_end, all_threads=True)

    def goodbye() -> None:
        faulthandler.disable()
        starting.join(timeout=5.0)
        with contextlib.suppress(OSError):
            os.write(write_end, _GOODBYE)
        with contextlib.suppress(OSError):
            os.close(write_end)
        for watcher in watchers:
            watcher.poll()  # reaped if it has ended; otherwise it ends once it has read the goodbye

    return goodbye


#: the watcher: a Python of its own (``-S``: no site-packages, a few milliseconds to start) importing this module
_WATCHER = """
import sys
sys.path.insert(0, sys.argv[1])
from pxp_tui.app.shell.terminal_guard import watch
watch(int(sys.argv[2]), sys.argv[3], sys.argv[4])
"""


def _nothing() -> None:
    pass


def watch(pipe: int, settings: str, note: str) -> None:
    """The watcher's side: wait on ``pipe`` for the goodbye; restore the terminal at anything else (Python's
    fatal-error report) or if the pipe closes without one, and keep the report in the user's cache."""
    import ast

    saved = ast.literal_eval(settings)
    heard = _read(pipe, 256)
    if heard.startswith(_GOODBYE):
        return
    while heard and b"\n" not in heard and len(heard) < 256:  # Python writes its report's first line in pieces
        more = _read(pipe, 256 - len(heard))
        if not more:
            break
        heard += more
    restore(saved)  # at once: the process may still be dying, and the shell's prompt is to come
    what, report = "it was killed", _report_path()
    if heard.startswith(b"Fatal Python error: "):
        what = heard.splitlines()[0].decode(errors="replace").removeprefix("Fatal Python error: ")
    line = f"pxp: ended abruptly ({what}); the terminal is restored." + (f" {note}" if note else "")
    kept = report is not None and heard.strip() and what != "it was killed"
    with contextlib.suppress(OSError):
        os.write(2, (f"\r\n{line}" + (f" Its report: {report}" if kept else "") + "\r\n").encode())
    if kept and report is not None:
        _keep(report, heard + _read(pipe))


def _read(pipe: int, first: int | None = None) -> bytes:
    """The first ``first`` bytes of ``pipe`` (as soon as there are any), or all of it until it closes."""
    heard = b""
    while True:
        try:
            chunk = os.read(pipe, first or 65536)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        heard += chunk
        if not chunk or first:
            return heard


def _report_path() -> Path | None:
    """Where Python's fatal-error report is kept: ``pxp-tui/last-crash.txt`` in the user's cache."""
    try:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pxp-tui" / "last-crash.txt"
    except RuntimeError:  # no home directory
        return None


def _keep(path: Path, report: bytes) -> None:
    """``report`` written to ``path``, mode 0600 in a folder of mode 0700, never through a link put there."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(report)


def restore(settings: list | None) -> None:
    """Put the terminal's ``settings`` back (tty mode) and undo what a full-screen app turned on."""
    if termios is not None and settings is not None:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(0, termios.TCSANOW, settings)
    with contextlib.suppress(OSError):
        os.write(2, RESTORE.encode())
