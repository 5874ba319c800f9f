"""Message tags and agents of the PXP protocol."""

from __future__ import annotations

from enum import Enum


class Tag(str, Enum):
    """The tag of a PXP message."""

    INIT = "INIT"
    RATIFY = "RATIFY"
    REFUTE = "REFUTE"
    REVISE = "REVISE"
    REJECT = "REJECT"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Tag:
        """Read a tag written in any case, with or without surrounding spaces."""
        try:
            return cls(text.strip().upper())
        except ValueError:
            names = ", ".join(t.value for t in cls)
            raise ValueError(f"unknown tag {text!r} (expected one of {names})") from None


class Sender(str, Enum):
    """The two agents of a session."""

    MACHINE = "machine"
    HUMAN = "human"

    def __str__(self) -> str:
        return self.value

    @property
    def other(self) -> Sender:
        return Sender.HUMAN if self is Sender.MACHINE else Sender.MACHINE

    @property
    def short(self) -> str:
        """The papers' subscript: ``m`` or ``h``."""
        return self.value[0]
