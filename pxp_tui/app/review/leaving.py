"""Leaving a screen whose workers may still be reading: they stop first, then the screen goes."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.worker import get_current_worker


def leave(screen: Screen[Any]) -> None:
    """Cancel ``screen``'s own workers, then dismiss it.

    Textual cancels a screen's workers when the screen itself is unmounted, after its widgets are gone: a read
    that ended in between filled widgets that were no longer there, and its error stopped the app (the review
    closed with a traceback; with a terminal that had stopped reading, the process never ended).
    """
    screen.workers.cancel_node(screen)
    screen.dismiss()


def cancelled() -> bool:
    """In a thread worker: whether it was cancelled (its screen left), so that it shows nothing."""
    return get_current_worker().is_cancelled
