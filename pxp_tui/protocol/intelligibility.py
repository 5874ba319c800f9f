"""Intelligibility of a session and of a run (DESIGN.md section 2).

For agent ``a``, ``T_a`` is the sequence of tags ``a`` sent in the session, excluding ``INIT``:

- one-way for ``a``: ``T_a`` has a RATIFY or REVISE, and no REJECT;
- two-way: one-way for both agents;
- strong for ``a``: ``T_a`` is non-empty and every tag is RATIFY or REVISE;
- ultra-strong for ``a``: strong for ``a`` and ``T_a`` has a REVISE.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from pxp_tui.protocol.tags import Sender, Tag

_GOOD = frozenset({Tag.RATIFY, Tag.REVISE})

#: a session as its messages' (sender, tag) in message order
SessionTags = Sequence[tuple[Sender, Tag]]


@dataclass(frozen=True)
class SessionFlags:
    """The intelligibility classes one session belongs to."""

    one_way_machine: bool
    one_way_human: bool
    two_way: bool
    strong_machine: bool
    strong_human: bool
    ultra_strong_machine: bool
    ultra_strong_human: bool


def _agent_flags(tags: list[Tag]) -> tuple[bool, bool, bool]:
    """(one-way, strong, ultra-strong) for one agent's non-INIT tags."""
    one_way = any(t in _GOOD for t in tags) and Tag.REJECT not in tags
    strong = bool(tags) and all(t in _GOOD for t in tags)
    return one_way, strong, strong and Tag.REVISE in tags


def session_flags(messages: SessionTags) -> SessionFlags:
    """Intelligibility of a session, from its messages' (sender, tag) pairs."""
    by_agent: dict[Sender, list[Tag]] = {Sender.MACHINE: [], Sender.HUMAN: []}
    for sender, tag in messages:
        if tag is not Tag.INIT:
            by_agent[Sender(sender)].append(Tag(tag))
    om, sm, um = _agent_flags(by_agent[Sender.MACHINE])
    oh, sh, uh = _agent_flags(by_agent[Sender.HUMAN])
    return SessionFlags(
        one_way_machine=om,
        one_way_human=oh,
        two_way=om and oh,
        strong_machine=sm,
        strong_human=sh,
        ultra_strong_machine=um,
        ultra_strong_human=uh,
    )


#: the counted classes, in the papers' table order
CLASSES: tuple[str, ...] = (
    "one_way_human",
    "one_way_machine",
    "two_way",
    "strong_human",
    "strong_machine",
    "ultra_strong_human",
    "ultra_strong_machine",
)


@dataclass(frozen=True)
class RunCounts:
    """How many of a run's sessions are in each intelligibility class."""

    sessions: int = 0
    one_way_human: int = 0
    one_way_machine: int = 0
    two_way: int = 0
    strong_human: int = 0
    strong_machine: int = 0
    ultra_strong_human: int = 0
    ultra_strong_machine: int = 0

    def proportion(self, name: str) -> float:
        """The maximum-likelihood proportion of sessions in class ``name`` (0 for no sessions)."""
        return getattr(self, name) / self.sessions if self.sessions else 0.0

    def add(self, flags: SessionFlags) -> RunCounts:
        """These counts with one more session."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["sessions"] += 1
        for name in CLASSES:
            values[name] += int(getattr(flags, name))
        return RunCounts(**values)


def run_counts(sessions: Iterable[SessionTags]) -> RunCounts:
    """Counts over a run's sessions."""
    counts = RunCounts()
    for messages in sessions:
        counts = counts.add(session_flags(messages))
    return counts


def curve(sessions: Iterable[SessionTags], n: int) -> list[RunCounts]:
    """The counts when only messages ``j <= j*`` are kept, for ``j* = 1..n``.

    Element ``j* - 1`` is the run's counts under message bound ``j*``; the last element (``j* = n``)
    equals :func:`run_counts` for sessions of at most ``n`` messages.
    """
    if n < 1:
        raise ValueError(f"the message bound must be at least 1, got {n}")
    sessions = [list(s) for s in sessions]
    return [run_counts(s[:bound] for s in sessions) for bound in range(1, n + 1)]
