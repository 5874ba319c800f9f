"""Offline review of past runs: runs -> a run's sessions -> one session replayed, read-only but for the expert's
flags and notes (written by ``review_notes``).

``ReviewScreen(db_path)`` can be pushed from any Textual app (the live app's start screen does);
``ReviewApp(db_path)`` runs it on its own (``pxp review``).
"""

from pxp_tui.app.review.review_app import ReviewApp
from pxp_tui.app.review.runs_screen import ReviewScreen

__all__ = ["ReviewApp", "ReviewScreen"]
