"""Messages between the review widgets and screens."""

from __future__ import annotations

from textual.message import Message


class FilterChanged(Message):
    """The reviewer changed the session filter: an intelligibility class (or None) and a text; ``chosen``: the
    class was just picked from the list."""

    def __init__(self, kind: str | None, text: str, chosen: bool = False) -> None:
        super().__init__()
        self.kind = kind
        self.text = text
        self.chosen = chosen
