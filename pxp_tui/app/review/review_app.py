"""``ReviewApp``: the review screens as an app of their own (``pxp review``)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from pxp_tui.app.review.runs_screen import ReviewScreen
from pxp_tui.app.shared.alt_keys import AltKeys
from pxp_tui.app.shared.goodbye import bound_goodbye
from pxp_tui.app.shared.keys_in_order import KeysInOrder
from pxp_tui.app.shared.look import Look
from pxp_tui.app.shared.visible_text import VisibleText


class ReviewApp(AltKeys, KeysInOrder, VisibleText, Look, App):
    """Runs -> a run's sessions -> one session replayed. It reads only, but for the flags and notes the expert writes
    (``b``, ``n``: :mod:`pxp_tui.app.review.review_notes`)."""

    TITLE = "PXP review"
    CSS_PATH = "../shell/pxp_app.tcss"  # the same look as the app's (dialogs, header)
    BINDINGS = [Binding("q", "quit", "Quit", id="review.quit")]

    def __init__(self, db_path: Path | str) -> None:
        super().__init__()
        self.db_path = Path(db_path)

    def on_mount(self) -> None:
        self.push_screen(ReviewScreen(self.db_path), callback=lambda _: self.leave())

    async def action_quit(self) -> None:
        self.leave()

    def leave(self) -> None:
        """Close the review; in a terminal, the process ends within ``GOODBYE`` seconds whatever the terminal does."""
        if not self.is_headless:
            bound_goodbye()
        self.exit()
