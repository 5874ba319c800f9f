"""Agents that follow a script of tags, for engine and blackboard tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pxp_tui.engine import AgentError, Reply, Turn
from pxp_tui.protocol import Tag


class ScriptedAgent:
    """Answers with the next tag of the script for its session (by instance order)."""

    def __init__(self, scripts: Sequence[Sequence[str]], *, on_turn: Callable[[Turn], None] | None = None):
        self.scripts = [list(s) for s in scripts]
        self.on_turn = on_turn
        self.turns: list[Turn] = []
        self.fail_at: set[tuple[int, int]] = set()  # (order, j) where it raises once

    async def respond(self, turn: Turn) -> Reply:
        if (turn.order, turn.j) in self.fail_at:
            self.fail_at.discard((turn.order, turn.j))
            raise AgentError("scripted failure")
        self.turns.append(turn)
        if self.on_turn:
            self.on_turn(turn)
        own = [m for m in turn.history if m.sender == turn.sender]
        tag = Tag(self.scripts[turn.order][len(own)])
        return Reply(tag, f"y{turn.j}", f"e{turn.j}", {"model": "script"})


def split_script(tags: Sequence[str]) -> tuple[list[str], list[str]]:
    """A session's tags (from j = 1) as the machine's and the human's scripts."""
    return list(tags[0::2]), list(tags[1::2])


class Item:
    """A minimal instance."""

    def __init__(self, id: int):
        self.id = id
        self.name = f"item{id}"
