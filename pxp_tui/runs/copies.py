"""Runs copied by ``pxp merge`` before they finished: continued where they were written, never in the copy."""

from __future__ import annotations

import shlex

from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.records import Run


def check_resumable(run: Run) -> None:
    """BlackboardError (one line, naming where the original is) if ``run`` is a copy ``pxp merge`` made of an
    unfinished run: it is continued where it was written, then merged again, so that one run is never driven in
    two places. A finished run is refused by the caller (it has nothing left to drive)."""
    origin = run.copy_of
    if origin is None:
        return
    where = origin.get("path") or origin.get("file") or "another blackboard"
    command = shlex.join(["pxp", "run", "--resume", str(origin.get("run_id", "RUN_ID")), "--db", str(where)])
    raise BlackboardError(
        f"run {run.id} is a copy merged from {where} (run {origin.get('run_id', '?')} there), not the original: "
        f"continue it there ({command}), then merge again"
    )
