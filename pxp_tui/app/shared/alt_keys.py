"""Alt with a letter is a command, never text: a text field with the focus does not type the letter.

A terminal sends alt+s as ESC and ``s``, which Textual reads as the key ``alt+s`` carrying the character ``s``;
a text field (``Input``, ``TextArea``) would type that ``s`` and keep the key, so the binding behind it (send, in
a browser tab, where ctrl+s saves the page: see :mod:`pxp_tui.app.shared.browser`) would never run while the
expert types. Mixed into both apps (``PXPApp``, ``ReviewApp``): the key loses its character before any widget
sees it, so it goes on to the bindings of the field, its screen and the app, as ctrl+s does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[Any]
else:
    _AppBase = object


class AltKeys(_AppBase):
    """Keys ``alt+...`` reach the bindings, not the focused text field."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.key.startswith("alt+"):
            event.character = None
        await super().on_event(event)
