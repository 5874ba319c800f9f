"""The open session as the app shows it: its messages so far, whose turn it is, and whether it goes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pxp_tui.engine import Message
from pxp_tui.engine.interact import stop_by_rule
from pxp_tui.protocol import Sender, StopReason, Tag, sender_at
from pxp_tui.protocol.evince import FIG1, NMI, TOLERANCE
from pxp_tui.protocol.information import SMOOTHING


@dataclass
class Exchange:
    """One session's messages, with the protocol's stop rule applied as they arrive."""

    session_id: int
    instance: Any
    order: int  # 0-based position in the run
    total: int  # sessions in the run
    n: int
    k: int
    messages: list[Message] = field(default_factory=list)
    stop: StopReason | None = None
    rule: str = "pxp"  # the run's stop rule (``--stop``: pxp, evince or both)
    labels: tuple[str, ...] | None = None  # the run's ordered ground metric (EVINCE's Wasserstein distance)
    evince_rule: str = FIG1  # which of EVINCE's rules --stop evince|both applies, with its tolerance
    tolerance: float = TOLERANCE
    smoothing: float = SMOOTHING
    evince_mi: str = NMI  # which MI the rules compare

    def add(self, message: Message) -> StopReason | None:
        """Append the message just committed; returns why the session stopped, if it did."""
        self.messages.append(message)
        self.stop = stop_by_rule(
            self.rule,
            self.n,
            self.labels,
            message,
            self.messages,
            evince_rule=self.evince_rule,
            tolerance=self.tolerance,
            smoothing=self.smoothing,
            mi=self.evince_mi,
        )
        return self.stop

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
