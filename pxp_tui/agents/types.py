"""What agents need of a task, without depending on the tasks layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pxp_tui.engine import Message, SessionRecord, Turn


class TaskLike(Protocol):
    """The part of ``pxp_tui.tasks.base.Task`` the agents use."""

    name: str
    explanation_noun: str

    def system_prompt(self) -> str: ...

    def session_messages(self, instance: Any, messages: Sequence[Message], *, in_context: bool) -> list[dict]: ...

    def context_messages(self, record: SessionRecord) -> list[dict]: ...

    def ask_content(self, turn: Turn) -> str: ...

    def parse(self, text: str, instance: Any = None) -> tuple[str, str]: ...

    def match(self, a: str, b: str) -> bool: ...
