"""A finished session as the expert is told it: how it ended, its last message, its intelligibility.

Built from what the engine committed (the session's messages and its stop reason); the flags are the
protocol layer's (:func:`pxp_tui.protocol.session_flags`), so the banner says what the metrics count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, SessionFlags, StopReason, Tag, session_flags


@dataclass(frozen=True)
class SessionOutcome:
    """How one session ended, for the outcome banner."""

    order: int  # 0-based position in the run
    total: int  # sessions in the run
    n: int  # the message bound
    stop: StopReason | None
    messages: tuple[Message, ...]
    human: str = "human"  # the expert's name, or the kind (proxy)

    @classmethod
    def of(
        cls, order: int, total: int, n: int, stop: StopReason | None, messages: Sequence[Message], human: str
    ) -> SessionOutcome:
        return cls(order, total, n, stop, tuple(messages), human)

    @property
    def last(self) -> Message | None:
        return self.messages[-1] if self.messages else None

    @property
    def flags(self) -> SessionFlags:
        return session_flags([(m.sender, m.tag) for m in self.messages])

    @property
    def is_last_session(self) -> bool:
        return self.order + 1 >= self.total

    def who(self, sender: Sender) -> str:
        return "the machine" if sender is Sender.MACHINE else self.human

    @property
    def headline(self) -> str:
        """``Ratified by both at message 3``, ``Rejected by the machine at message 5``, ``Bound reached...``,
        ``Diverged at message 6: ...`` (EVINCE's rule)."""
        last = self.last
        j = last.j if last else 0
        if self.stop is StopReason.RATIFIED:
            return f"Ratified by both at message {j}"
        if self.stop is StopReason.REJECTED and last is not None:
            return f"Rejected by {self.who(last.sender)} at message {j}"
        if self.stop is StopReason.BOUND:
            return f"Message bound reached ({self.n} messages) without agreement"
        if self.stop is StopReason.CONVERGED:
            return f"Converged at message {j}: EVINCE's rule ended the debate, the distributions closer or alike"
        if self.stop is StopReason.DIVERGED:
            return f"Diverged at message {j}: EVINCE's rule ended the debate, the distributions further apart"
        if self.stop is StopReason.STALLED:
            return f"Stalled at message {j}: EVINCE's rule ended the debate, the distributions still apart"
        return f"Stopped at message {j}"

    @property
    def agreed(self) -> bool:
        return self.stop is StopReason.RATIFIED

    def flag_lines(self) -> list[tuple[str, bool, bool | None]]:
        """(class, for the human, for the machine) in the papers' order; two-way has one value (the machine's is None)."""
        f = self.flags
        return [
            ("one-way", f.one_way_human, f.one_way_machine),
            ("two-way", f.two_way, None),
            ("strong", f.strong_human, f.strong_machine),
            ("ultra-strong", f.ultra_strong_human, f.ultra_strong_machine),
        ]

    def tags(self) -> list[tuple[Sender, Tag]]:
        return [(m.sender, m.tag) for m in self.messages]
