"""The apps' own text sinks made safe: the header's title and every notification show data as visible text.

Mixed into both apps (``PXPApp``, ``ReviewApp``), so that a screen's ``sub_title`` naming a model or an
instance, or a notification quoting an error, can never send a terminal escape sequence, whoever sets it
(see :func:`pxp_tui.common.visible.visible`). Markup in a notification is left as the caller asked: a
caller quoting data passes ``markup=False``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from pxp_tui.common.visible import visible

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[Any]
else:
    _AppBase = object


class VisibleText(_AppBase):
    """The header's title and the notifications, with :func:`visible` applied."""

    def format_title(self, title: str, sub_title: str) -> Content:
        return super().format_title(visible(title, one_line=True), visible(sub_title, one_line=True))

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:
        super().notify(visible(message), title=visible(title, one_line=True), **kwargs)


class VisiblePaste:
    """Mixin for a text field (``Input``, ``TextArea``): what is pasted is :func:`visible` (a terminal's
    bracketed paste passes escape sequences through; a field would draw them)."""

    def on_paste(self, event: Any) -> None:
        event.text = visible(event.text)  # the field's own handler (``_on_paste``, later in the MRO) inserts it
