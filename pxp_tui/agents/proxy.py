"""The human proxy: an oracle answering with the dataset's reference prediction and explanation."""

from __future__ import annotations

from typing import Any

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.computed import check_meta, decide
from pxp_tui.agents.types import TaskLike
from pxp_tui.engine import Reply, Turn


class ProxyHuman:
    """Never changes its answer, so never sends REVISE. MATCH is the task's; AGREE is the checker."""

    def __init__(self, task: TaskLike, checker: Checker) -> None:
        self.task = task
        self.checker = checker

    async def respond(self, turn: Turn) -> Reply:
        instance = turn.instance
        fresh = self.task.reference(instance)
        decision = await decide(turn, fresh, self.task.match, self.checker.agree)
        meta: dict[str, Any] = {**decision.guards, **check_meta(decision.checks)}
        if decision.checks:
            meta["model"] = f"proxy (checker {decision.checks[0].model})"
        return Reply(decision.tag, decision.prediction, decision.explanation, meta)
