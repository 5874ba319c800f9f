"""A form's fields, mounted just after the screen's first frame (Textual's ``Lazy``), with an event for it; keys
typed before wait for them (:mod:`~pxp_tui.app.shared.keys_in_order`)."""

from __future__ import annotations

import asyncio

from textual.containers import Grid

from pxp_tui.app.shared.keys_in_order import KeysWelcome


class FormFields(Grid):
    """Fields to wrap in ``Lazy``: styling ``Select``s and ``Input``s (and their inner widgets) is most of
    a form's setup, so the screen paints first and they follow a frame later, in a slot of their height.
    :attr:`mounted` is set once they are (what reads them awaits it); the screen's ``takes_keys`` says whether
    they are, and the keys typed before are handed on then."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.mounted = asyncio.Event()

    def on_mount(self) -> None:
        self.mounted.set()
        self.app.post_message(KeysWelcome())
