"""A form's fields, mounted just after the screen's first frame (Textual's ``Lazy``), with an event for it."""

from __future__ import annotations

import asyncio

from textual.containers import Grid


class FormFields(Grid):
    """Fields to wrap in ``Lazy``: styling ``Select``s and ``Input``s (and their inner widgets) is most of
    a form's setup, so the screen paints first and they follow a frame later, in a slot of their height.
    :attr:`mounted` is set once they are (what reads them awaits it)."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.mounted = asyncio.Event()

    def on_mount(self) -> None:
        self.mounted.set()
