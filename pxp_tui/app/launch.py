"""Starting the app from the command line, with the terminal asked about graphics while modules load."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def run_app(db_path: str | Path, run_id: int | None = None) -> int:
    """Open the app on ``db_path`` (the start screen, or run ``run_id``); exits the process when it closes."""
    from pxp_tui.app import graphics

    probe = graphics.probe()  # a thread; Textual must not read the keyboard before it is done
    from pxp_tui.app.pxp_app import PXPApp

    app = PXPApp(Path(db_path), run_id=run_id)
    if probe is not None:
        probe.join(timeout=2.0)
    app.run()
    code = app.return_code or 0  # 1 after a crash (Textual has printed it)
    # The app has stopped its runs and closed the blackboard (every message was committed when it was
    # shown). Tearing down litellm and RDKit at interpreter exit takes about a second: skip it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
