"""What the engine tells the app, as typed Textual messages (posted from the engine's observer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message as TextualMessage

from pxp_tui.engine import Message, SessionRecord, Turn


@dataclass
class SessionStarted(TextualMessage):
    """A session opened (or reopened, when a run resumes: ``history`` holds its earlier messages)."""

    session_id: int
    instance: Any
    order: int
    total: int
    history: tuple[Message, ...] = ()


@dataclass
class MessageRecorded(TextualMessage):
    """A PXP message was committed to the blackboard: it may now be shown."""

    message: Message


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
    """The engine stopped driving the run: ``outcome`` is ``done``, ``cancelled`` or ``failed``."""

    outcome: str
    cause: str = ""
    retryable: bool = True
