"""Choices of the expert's answer that take no input while it is not their turn, without being disabled.

Disabling a widget restyles it and everything in it; the answer is locked instead for the moment after
a send (see :mod:`pxp_tui.app.session.reply_wait`), and disabled only if that moment lasts. A locked widget
runs none of its key bindings: the keys go on to the screen's (escape cancels the machine's call, a tag
key says to wait for "Your turn", t, p, ? ...). Text fields are not kept focused while locked (the
picker moves the focus off them), so that what is typed is not edited into them.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class Locked(Message):
    """A click reached a locked choice of the answer (the screen says to wait for the expert's turn)."""


class Lockable:
    """Mixin for a Textual widget: while :attr:`locked`, it runs no action of its own (its bindings pass)."""

    locked = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.locked:
            return False  # the key goes on to the screen (the tag keys: "wait for your turn")
        parent: Any = super()
        return parent.check_action(action, parameters)  # type: ignore[no-any-return]
