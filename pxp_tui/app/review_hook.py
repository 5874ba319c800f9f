"""The hook for the review of past runs, which lives in ``pxp_tui.app.review`` (its own issue).

Contract: ``pxp_tui.app.review`` exports ``ReviewScreen``, a Textual screen built as
``ReviewScreen(db_path)`` (the blackboard file, a :class:`pathlib.Path`). The start screen offers it
(``ctrl+o``, and "Review past runs" in the command palette) when the module is installed, and says it
is not available yet otherwise.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any

REVIEW_MODULE = "pxp_tui.app.review"


def review_available() -> bool:
    try:
        return find_spec(REVIEW_MODULE) is not None
    except ModuleNotFoundError:
        return False


def review_screen(db_path: Path) -> Any:
    """The review screen on ``db_path``; ImportError if the review is not installed."""
    return import_module(REVIEW_MODULE).ReviewScreen(db_path)
