"""Starting the app (or the review) from the command line, with the terminal asked about graphics while modules load."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any


def require_terminal(environ: Mapping[str, str] | None = None, streams: Sequence[Any] | None = None) -> None:
    """Refuse (ValueError, saying what to do) to start the app where it could neither read keys nor be seen.

    The app reads keys from standard input and draws on standard error; without a terminal there (a script's
    pipe, a job without one) Textual's input thread would spin on the empty input forever, the app never seen.
    An app given a driver of its own (``TEXTUAL_DRIVER``: ``pxp serve``'s tabs) needs none."""
    if (os.environ if environ is None else environ).get("TEXTUAL_DRIVER"):
        return
    stdin, stderr = (sys.__stdin__, sys.__stderr__) if streams is None else streams
    missing = [name for name, stream in (("input", stdin), ("error", stderr)) if not _is_terminal(stream)]
    if missing:
        which = " and ".join(f"standard {name}" for name in missing)
        verb = "are" if len(missing) > 1 else "is"
        raise ValueError(
            f"the app needs a terminal: it reads keys from standard input and draws on standard error, and here {which} "
            f"{verb} not a terminal. Run pxp in a terminal, or headless: pxp run --headless"
        )


def _is_terminal(stream: Any) -> bool:
    try:
        return stream is not None and bool(stream.isatty())
    except (OSError, ValueError):  # closed
        return False


def run_app(db_path: str | Path, run_id: int | None = None) -> int:
    """Open the app on ``db_path`` (the start screen, or run ``run_id``); exits the process when it closes."""
    require_terminal()

    def make() -> Any:
        from pxp_tui.app.shell.pxp_app import PXPApp

        return PXPApp(Path(db_path), run_id=run_id)

    code = _run(make, "Every message shown was saved: open pxp on the same file to resume the run.")
    # The app has stopped its runs and closed the blackboard (every message was committed when it was
    # shown). Tearing down litellm and RDKit at interpreter exit takes about a second: skip it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_review(db_path: str | Path) -> int:
    """Open the review of past runs on ``db_path`` (read-only); returns its exit code."""
    require_terminal()

    def make() -> Any:
        from pxp_tui.app.review import ReviewApp

        return ReviewApp(db_path)

    return _run(make)


def _run(make: Callable[[], Any], note: str = "") -> int:
    """Ask the terminal about graphics in a thread while ``make`` imports and builds the app, then run it.

    textual-image asks the same questions when it is imported (with numpy and Pillow, about 75 ms before
    the first frame): it is imported after the first paint, the answers replayed to it (``app/picture/graphics.py``).
    Before anything else, a watcher is forked that restores the terminal if the process dies unannounced
    (``app/shell/terminal_guard.py``); ``note`` is its line's advice.
    """
    from pxp_tui.app.picture import graphics
    from pxp_tui.app.shared import typed_ahead
    from pxp_tui.app.shell import terminal_guard

    goodbye = terminal_guard.guard(note)  # before Textual is imported
    try:
        probe = graphics.probe()  # a thread; Textual must not read the keyboard before it is done (keys typed meanwhile are kept)
        app = make()
        if probe is not None:
            probe.join(timeout=graphics.LIMIT)  # at once where the terminal answers (graphics.WAIT)
        app.run()
    finally:
        typed_ahead.release()  # the terminal as it was, if the app never took it over
        goodbye()  # Textual has restored the terminal (or never touched it)
    return int(app.return_code or 0)  # 1 after a crash (Textual has printed it)
