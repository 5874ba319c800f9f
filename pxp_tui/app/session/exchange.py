"""The open session as the app shows it: its messages so far, whose turn it is, and whether it goes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag, sender_at


@dataclass
class Exchange:
    """One session's messages, and whether it stopped: the engine's decision, carried with each message."""

    session_id: int
    instance: Any
    order: int  # 0-based position in the run
    total: int  # sessions in the run
    n: int
    k: int
    messages: list[Message] = field(default_factory=list)
    stop: StopReason | None = None

    def add(self, message: Message, stop: StopReason | None = None) -> StopReason | None:
        """Append the message just committed, with why the session stopped after it (the engine's decision, None
        while it goes on); returns that reason."""
        self.messages.append(message)
        self.stop = stop
        return stop

    @property
    def next_j(self) -> int:
        return len(self.messages) + 1

    @property
    def next_sender(self) -> Sender | None:
        """Who speaks next, or None once the session has stopped."""
        return None if self.stop is not None else sender_at(self.next_j)

    def last_from(self, sender: Sender) -> Message | None:
        for message in reversed(self.messages):
            if message.sender is sender:
                return message
        return None

    def tags(self) -> list[tuple[Sender, Tag]]:
        return [(m.sender, m.tag) for m in self.messages]
