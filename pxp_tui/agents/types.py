"""What agents need of a task, without depending on the tasks layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn


class TaskLike(Protocol):
    """The part of :class:`pxp_tui.tasks.base.Task` the agents use."""

    @property
    def name(self) -> str: ...

    @property
    def explanation_noun(self) -> str: ...

    def system_prompt(self) -> str: ...

    def session_messages(
        self, instance: Instance, messages: Sequence[Message], *, in_context: bool, seat: str = ..., other: str = ...
    ) -> list[dict[str, Any]]: ...

    def context_messages(self, record: SessionRecord, seat: str = ..., other: str = ...) -> list[dict[str, Any]]: ...

    def distribution_instruction(self, k: int) -> str | None: ...

    def read_distribution(self, text: str, prediction: str, instance: Instance | None, k: int) -> Any: ...

    def ask_content(self, turn: Turn, other: str = ...) -> str: ...

    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]: ...

    def match(self, a: str, b: str) -> bool: ...
