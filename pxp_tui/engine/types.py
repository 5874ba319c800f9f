"""Data passed between the engine, the agents and the recorder."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from pxp_tui.common.instance import Instance
from pxp_tui.protocol import Sender, StopReason, Tag, sender_at
from pxp_tui.protocol.evince import FIG1, NMI, TOLERANCE
from pxp_tui.protocol.information import SMOOTHING


class RunStatus(str, Enum):
    """Where a run is, as stored in ``runs.status`` (the engine moves it from ``created`` to ``done``)."""

    CREATED = "created"  # stored, never driven
    RUNNING = "running"  # an engine is driving it
    PAUSED = "paused"  # stopped before its end (an error, a signal, the expert quit): it resumes at its next message
    DONE = "done"  # every session finished
    #: shown, never stored: the file says ``running`` but no living process drives the run (it was killed,
    #: or the file was copied): see :mod:`pxp_tui.blackboard.writers`
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value


def _json_meta(meta: Mapping[str, Any], key: str) -> Any:
    """``meta[key]`` parsed if it is JSON text, as it is if not; None if it is unreadable."""
    value = meta.get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def distribution_of(meta: Mapping[str, Any]) -> dict[str, float] | None:
    """A message's distribution as its agent stated it (``meta["distribution"]``: JSON text or a mapping), or
    None: none stated, unreadable, or marked unstated (``meta["distribution_fallback"]``: the reply had no
    readable distribution; a file of an older pxp holds a one-hot on the prediction there, never read)."""
    if unstated(meta):
        return None
    value = _json_meta(meta, "distribution")
    return {str(k): float(v) for k, v in dict(value).items()} if value else None


def unstated(meta: Mapping[str, Any]) -> bool:
    """Whether the message was asked for a distribution and its reply stated none readable."""
    return bool(meta.get("distribution_fallback"))


def unstated_rounds(messages: Sequence[Message]) -> list[int]:
    """The rounds (``(j + 1) // 2``) with a message asked for a distribution that stated none: left out of
    EVINCE's measures, its stop rule and the final distribution."""
    return sorted({(m.j + 1) // 2 for m in messages if unstated(m.meta)})


def distributions(messages: Sequence[Message]) -> dict[int, dict[str, float]]:
    """The messages' distributions by ``j`` (``meta["distribution"]``, JSON text or a mapping)."""
    found = {m.j: distribution_of(m.meta) for m in messages}
    return {j: d for j, d in found.items() if d}


def crit_of(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """The CRIT verdict stored with the message that closes a round (``meta["crit"]``: JSON text or a
    mapping: both agents' scores, the round's ``score``, the judge's items and reply), or None."""
    value = _json_meta(meta, "crit")
    return dict(value) if isinstance(value, Mapping) else None


def round_crit(meta: Mapping[str, Any]) -> float | None:
    """The round's CRIT score (the mean of both agents'), or None if the round was not judged."""
    found = crit_of(meta)
    score = found.get("score") if found else None
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None


@dataclass(frozen=True)
class Message:
    """One PXP message ``(tag, prediction, explanation)`` at position ``j`` of a session."""

    session_id: int
    j: int
    sender: Sender
    tag: Tag
    prediction: str
    explanation: str
    #: guard values, model, latency, tokens, cost... (column name -> value)
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def receiver(self) -> Sender:
        return self.sender.other


@dataclass(frozen=True)
class SessionRecord:
    """A finished session, as carried in the machine's context."""

    session_id: int
    instance: Instance
    order: int
    messages: tuple[Message, ...]
    stop: StopReason | None


@dataclass(frozen=True)
class Turn:
    """What an agent is told when asked for message ``j``."""

    run_id: int
    session_id: int
    instance: Instance
    order: int  # 0-based position of the session in the run
    total: int  # sessions planned in the run
    j: int
    n: int
    k: int
    history: tuple[Message, ...]  # this session's messages so far (1..j-1)
    prior: Sequence[SessionRecord]  # earlier sessions carried in the context, oldest first

    @property
    def sender(self) -> Sender:
        return sender_at(self.j)

    @property
    def other_last(self) -> Message | None:
        """The other agent's message at ``j - 1``."""
        return self.history[-1] if self.history else None

    @property
    def own_last(self) -> Message | None:
        """This agent's own message at ``j - 2``."""
        return self.history[-2] if len(self.history) >= 2 else None


@dataclass(frozen=True)
class Reply:
    """An agent's answer: its tag, prediction and explanation, plus what it knows of how it got them."""

    tag: Tag
    prediction: str
    explanation: str
    meta: Mapping[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    """A PXP agent. Agents know nothing of storage or UI."""

    async def respond(self, turn: Turn) -> Reply: ...


class AgentError(Exception):
    """An agent could not answer (after its own retries). The run pauses; it can be resumed."""

    def __init__(self, cause: str, *, retryable: bool = True) -> None:
        super().__init__(cause)
        self.cause = cause
        self.retryable = retryable


class ParseError(ValueError):
    """A model's reply could not be read as a prediction and an explanation (the task's parser says why)."""


class InstanceSkippedError(Exception):
    """Raised by the human's agent instead of answering: the expert skips this instance. The session ends
    without a message from them (stop reason ``skipped``); nothing sent before is changed."""


class ProtocolViolationError(Exception):
    """An agent answered with a tag the protocol does not allow at that point."""


@dataclass(frozen=True)
class RunSpec:
    """What the engine needs to know of a run."""

    run_id: int
    n: int = 10
    k: int = 3
    context: str = "all"  # all | none | last:N
    #: the session stop rule: PXP's (``pxp``), EVINCE's (``evince``: RATIFY/RATIFY does not stop, the
    #: measures do), or whichever comes first (``both``); REJECT and the bound n always stop
    stop: str = "pxp"
    #: the label order of an ordered ground metric for the Wasserstein distance (None: 0/1, the total variation)
    order: tuple[str, ...] | None = None
    #: which of EVINCE's rules ``evince`` and ``both`` apply (``fig1`` or ``plateau``), with what tolerance,
    #: and the smoothing of the KL divergence and cross entropy the rounds are measured with
    evince_rule: str = FIG1
    tolerance: float = TOLERANCE
    smoothing: float = SMOOTHING
    #: which MI the stop rules compare: the normalised (``nmi``) or the literal (``mi``)
    evince_mi: str = NMI


@dataclass
class RunProgress:
    """Where a run stands: finished sessions and the open one, as the recorder holds them."""

    done: list[SessionRecord] = field(default_factory=list)
    kept: set[int] = field(default_factory=set)  # finished sessions whose context was kept
    open_session: int | None = None  # session started but not finished
    open_messages: list[Message] = field(default_factory=list)

    @property
    def next_order(self) -> int:
        return len(self.done)

    @property
    def kept_sessions(self) -> list[SessionRecord]:
        """The finished sessions whose context was kept, in session order."""
        return [r for r in self.done if r.session_id in self.kept]


class Recorder(Protocol):
    """Durable storage of a run (the blackboard implements it). Each call commits before returning."""

    def start_session(self, run_id: int, instance_id: int, order: int) -> int: ...

    def record(self, message: Message, context: Mapping[str, Any], stop: StopReason | None) -> None: ...

    def keep_context(self, session_id: int, kept: bool) -> None: ...

    def skip_session(self, session_id: int) -> None: ...

    def set_status(self, run_id: int, status: RunStatus, error: str | None = None) -> None: ...


class Observer:
    """A listener for a run's progress (the CLI's session lines, the app). Every method does nothing:
    a listener subclasses this and overrides what it needs. Each is called after the recorder committed."""

    def session_started(self, session_id: int, instance: Instance, order: int, total: int, history: tuple[Message, ...]) -> None:
        """A session opened; ``history`` holds its messages already recorded (a resumed session's)."""

    def message_recorded(self, message: Message, stop: StopReason | None) -> None:
        """``message`` was committed, with the engine's decision on it: ``stop``, why the session stops after it
        (the run's stop rule: ``RunSpec.stop``), or None while it goes on. Listeners show this decision; none
        applies the rule again."""

    def session_ended(self, record: SessionRecord, kept: bool) -> None:
        """A session stopped; ``kept``: its context is carried into the next sessions (the LEARN gate's decision)."""
