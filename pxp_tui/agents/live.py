"""The live human: the expert chooses the tag and writes their own prediction and explanation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from pxp_tui.engine import InstanceSkippedError, Reply, Turn
from pxp_tui.protocol import Tag, allowed_tags


class LiveHuman:
    """Awaits the expert: :meth:`respond` waits until the UI calls :meth:`submit` (or :meth:`skip`).

    Each answer carries ``answer_ms``: the time from the expert's turn shown (:meth:`turn_shown`, else the
    turn's start) to the send.
    """

    def __init__(self, name: str, on_turn: Callable[[Turn], None] | None = None) -> None:
        self.name = name
        self.on_turn = on_turn
        self.turn: Turn | None = None
        #: the expert has taken a machine's seat (a machine-machine run watched in the app: see agents/relay.py)
        self.joined = False
        self._answer: asyncio.Future[Reply] | None = None
        self._shown = time.monotonic()

    @property
    def waiting(self) -> bool:
        return self._answer is not None and not self._answer.done()

    async def respond(self, turn: Turn) -> Reply:
        self.turn = turn
        self._shown = time.monotonic()
        self._answer = asyncio.get_running_loop().create_future()
        if self.on_turn is not None:
            self.on_turn(turn)
        try:
            return await self._answer
        finally:
            self._answer = None

    def turn_shown(self) -> None:
        """The expert's turn is on screen now: the time of this answer counts from here."""
        self._shown = time.monotonic()

    def skip(self) -> None:
        """Skip this instance: no message is sent, the session ends as ``skipped``."""
        if not self.waiting:
            raise ValueError("it is not the expert's turn")
        assert self._answer is not None
        self._answer.set_exception(InstanceSkippedError())

    def check(self, tag: Tag, prediction: str, explanation: str) -> str | None:
        """Why this answer cannot be sent now, or None if it can."""
        if self.turn is None or not self.waiting:
            return "it is not the expert's turn"
        if tag not in allowed_tags(self.turn.j, self.turn.k):
            if tag is Tag.REJECT:
                return f"REJECT is allowed only after message {self.turn.k} (this is message {self.turn.j})"
            return f"{tag.value} cannot be sent by the expert"
        if not prediction.strip():
            return "the prediction is empty"
        if not explanation.strip():
            return "the explanation is empty"
        return None

    def submit(self, tag: Tag, prediction: str, explanation: str, guards: Mapping[str, Any] | None = None) -> None:
        """Send the expert's message; :class:`ValueError` (and nothing sent) if it breaks the protocol."""
        problem = self.check(tag, prediction, explanation)
        if problem:
            raise ValueError(problem)
        assert self._answer is not None
        answer_ms = round((time.monotonic() - self._shown) * 1000, 1)
        meta = {"model": f"human:{self.name}", "answer_ms": answer_ms, **(guards or {})}
        self._answer.set_result(Reply(tag, prediction.strip(), explanation.strip(), meta))
