"""The machine's context ``C`` carried across sessions, and UPDATE_CONTEXT."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from pxp_tui.engine.types import Message, SessionRecord
from pxp_tui.protocol import Sender


@dataclass(frozen=True)
class ContextPolicy:
    """Which earlier sessions the machine is conditioned on: all, none, or the last ``N``."""

    keep: int | None  # None = all

    @classmethod
    def parse(cls, text: str) -> ContextPolicy:
        value = text.strip().lower()
        if value == "all":
            return cls(None)
        if value == "none":
            return cls(0)
        if value.startswith("last:"):
            try:
                count = int(value[5:])
            except ValueError:
                count = -1
            if count >= 1:
                return cls(count)
        raise ValueError(f"context policy must be all, none or last:N with N >= 1, got {text!r}")

    def __str__(self) -> str:
        if self.keep is None:
            return "all"
        return "none" if self.keep == 0 else f"last:{self.keep}"


class PriorView(Sequence[SessionRecord]):
    """A read-only window onto the carried sessions; O(1) to make, whatever the run's length."""

    __slots__ = ("_items", "_named", "_start", "_stop")

    def __init__(self, items: list[SessionRecord], start: int, stop: int) -> None:
        self._items, self._start, self._stop = items, start, stop
        self._named: dict[str, int | None] | None = None

    def named(self) -> dict[str, int | None]:
        """The window as the context table names it: how many sessions, the first's and the last's ids (made once)."""
        if self._named is None:
            count = self._stop - self._start
            first = self._items[self._start].session_id if count else None
            last = self._items[self._stop - 1].session_id if count else None
            self._named = {"sessions": count, "first": first, "last": last}
        return self._named

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> SessionRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[SessionRecord]: ...
    def __getitem__(self, index: int | slice) -> SessionRecord | Sequence[SessionRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._items[self._start + index]

    def __iter__(self) -> Iterator[SessionRecord]:
        for i in range(self._start, self._stop):
            yield self._items[i]


class CarriedContext:
    """The sessions carried into the machine's context, selected by a policy."""

    def __init__(self, policy: ContextPolicy, sessions: list[SessionRecord] | None = None) -> None:
        self.policy = policy
        self._sessions: list[SessionRecord] = []
        for record in sessions or ():
            self.add(record)

    def add(self, record: SessionRecord) -> None:
        if self.policy.keep == 0:
            return
        self._sessions.append(record)
        # bounded policies never hold more than twice their window; a new list, so that views
        # handed out earlier stay valid
        if self.policy.keep is not None and len(self._sessions) > 2 * self.policy.keep:
            self._sessions = self._sessions[-self.policy.keep :]

    def view(self) -> PriorView:
        stop = len(self._sessions)
        start = 0 if self.policy.keep is None else max(0, stop - self.policy.keep)
        return PriorView(self._sessions, start, stop)


def update_context(message: Message, instance_id: int, prior: PriorView, policy: ContextPolicy) -> dict[str, Any]:
    """UPDATE_CONTEXT: the entry that message ``j`` adds to ``C``, as stored in the ``context`` table.

    ``C_j`` is ``C_{j-1}`` plus this entry. Everything is named by reference, so that nothing is stored twice and a
    row's size grows neither with the run nor with the message: the carried sessions by their first and last ids, the
    message's prediction and explanation by its key (the row of ``messages`` with the same ``session_id`` and ``j``),
    the instance by its id.
    """
    sender = message.sender
    return {
        "policy": str(policy),
        "prior": prior.named(),
        "entry": {
            "role": "assistant" if sender is Sender.MACHINE else "user",
            "sender": sender,  # a str enum: written as its text
            "tag": message.tag,
            "instance": instance_id,
        },
    }
