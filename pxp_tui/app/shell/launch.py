"""Starting the app (or the review) from the command line, with the terminal asked about graphics while modules load."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_app(db_path: str | Path, run_id: int | None = None) -> int:
    """Open the app on ``db_path`` (the start screen, or run ``run_id``); exits the process when it closes."""

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
