"""Starting the app from the command line, with the terminal asked about graphics while modules load."""

from __future__ import annotations

from pathlib import Path


def run_app(db_path: str | Path, run_id: int | None = None) -> int:
    """Open the app on ``db_path`` (the start screen, or run ``run_id``); returns the exit code."""
    from pxp_tui.app import graphics

    probe = graphics.probe()  # a thread; Textual must not read the keyboard before it is done
    from pxp_tui.app.pxp_app import PXPApp

    app = PXPApp(Path(db_path), run_id=run_id)
    if probe is not None:
        probe.join(timeout=2.0)
    code = app.run()
    return int(code or 0)
