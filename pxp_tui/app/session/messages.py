"""What the engine tells the app, as typed Textual messages (posted from the engine's observer)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from textual.message import Message as TextualMessage

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn
from pxp_tui.protocol import StopReason


class StopOutcome(str, Enum):
    """How the engine stopped driving a run in the app."""

    DONE = "done"  # every session finished
    CANCELLED = "cancelled"  # the worker was cancelled (a confirmed cancel, a pause, quitting): nothing pending was written
    FAILED = "failed"  # a model failure or a blackboard problem; ``cause`` says which

    def __str__(self) -> str:
        return self.value


@dataclass
class SessionStarted(TextualMessage):
    """A session opened (or reopened, when a run resumes: ``history`` holds its earlier messages)."""

    session_id: int
    instance: Instance
    order: int
    total: int
    history: tuple[Message, ...] = ()


@dataclass
class MessageRecorded(TextualMessage):
    """A PXP message was committed to the blackboard: it may now be shown, with the engine's decision on it."""

    message: Message
    stop_reason: StopReason | None = None  # why the session stops after it (the engine's stop rule), or None: it goes on


@dataclass
class SessionEnded(TextualMessage):
    """A session stopped (ratified, rejected or at the bound)."""

    record: SessionRecord


@dataclass
class HumanTurn(TextualMessage):
    """The engine awaits the expert's message ``turn.j``."""

    turn: Turn


@dataclass
class RunStopped(TextualMessage):
    """The engine stopped driving the run."""

    outcome: StopOutcome
    cause: str = ""
    retryable: bool = True
