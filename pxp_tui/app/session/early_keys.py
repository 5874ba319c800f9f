"""Keys pressed before the expert's turn: said so, never dropped in silence, never kept for later.

A tag key or ctrl+s typed while the machine is still answering would, if queued, answer a message the
expert has not read yet; so it is not kept: a notification says to wait for "Your turn". At the
expert's turn the tag keys choose a tag wherever the focus is (outside a text field).
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.binding import Binding

from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.tag_choice import CHOICES, TagChoice

WAIT = "Wait for your turn: the machine is answering. The key was not kept."


def early_key_bindings() -> list[Binding]:
    """1-4 on the screen itself (the tag list has its own while it has the focus)."""
    return [
        Binding(str(i + 1), f"early_tag({i})", f"Choose {tag.value}", id=f"session.tag.{tag.value.lower()}", show=False)
        for i, tag in enumerate(CHOICES)
    ]


class EarlyKeysScreen(Protocol):
    """What :class:`EarlyKeys` reads of the session screen."""

    @property
    def state(self) -> SessionState: ...

    def query_one(self, selector: type[TagChoice]) -> TagChoice: ...

    def notify(self, message: str, *, severity: Any = ..., timeout: float | None = ...) -> None: ...


class EarlyKeys:
    """The session screen's part that answers the tag keys when the tag list does not have the focus, and any
    key of the answer pressed before the expert's turn."""

    def __init__(self, screen: EarlyKeysScreen) -> None:
        self.screen = screen

    def tag(self, index: int) -> None:
        """Tag key ``index`` (0 for the first): chosen at the expert's turn, else they are told to wait."""
        if self.screen.state is SessionState.HUMAN:
            choice = self.screen.query_one(TagChoice)
            choice.focus()
            choice.choose(CHOICES[index])
        else:
            self.wait_for_turn()

    def wait_for_turn(self) -> None:
        self.screen.notify(WAIT, severity="warning", timeout=3)
