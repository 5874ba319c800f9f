"""EVINCE's final distribution, weighed when a session ends (issue 10; paper 003, step 3).

The blackboard stores, with a session's last message, both agents' latest distributions combined with
equal weights and marked ``equal (not judged)`` (:mod:`pxp_tui.blackboard.finals`). Here, right after, the
run's CRIT judge (:mod:`pxp_tui.agents.crit`, the checker's model; ``offline``: the offline baseline) scores
both agents' arguments and the session's final distribution is stored again, weighted by the scores; with
``--final-weights equal`` it is marked ``equal``. A judge that fails leaves equal weights and says why. A run
resumed after a crash between a session's end and its judge first weighs what was left.
"""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.agents.crit import Argument, Judge
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.common.models import judge_model
from pxp_tui.engine import Message, SessionRecord
from pxp_tui.engine.interact import stored
from pxp_tui.engine.types import distribution_of
from pxp_tui.protocol import Sender
from pxp_tui.protocol.evince import EQUAL
from pxp_tui.runs.config import RunConfig
from pxp_tui.runs.seats import checker_api_base, client
from pxp_tui.tasks.base import Task


def judge_of(task: Task, config: RunConfig) -> Judge | None:
    """The run's CRIT judge: the checker's model, on the checker's server (None: ``--final-weights equal``)."""
    if config.final_weights == EQUAL:
        return None
    model = judge_model(config.checker_model)
    return Judge(client(model, config, checker_api_base(config)), prediction_label=task.prediction_label)


def case_text(task: Task, instance: Instance) -> str:
    """The case as the judge reads it: the text the agents were shown (a picture is described, not sent)."""
    content = task.instance_content(instance, in_context=True)
    if isinstance(content, str):
        return content
    text = " ".join(part.get("text", "") for part in content if part.get("type") == "text").strip()
    if any(part.get("type") != "text" for part in content):
        text += " (The experts were shown an image; you are not: judge their arguments.)"
    return text


def argument(task: Task, message: Message) -> Argument:
    """A message's stance as the judge reads it: its prediction (as MATCH compares it), explanation, distribution."""
    normalised = task.normalise(message.prediction)
    prediction = message.prediction if normalised.startswith("invalid:") else normalised
    return Argument(prediction, message.explanation, distribution_of(message.meta) or {})


class Weigher:
    """Weighs each ended session's final distribution, through the run's judge (or equally)."""

    def __init__(self, board: Blackboard, task: Task, judge: Judge | None) -> None:
        self.board = board
        self.task = task
        self.judge = judge

    async def session_ended(self, record: SessionRecord) -> None:
        """The engine's hook: a session ended (and was committed)."""
        await self.weigh(record.session_id, record.instance)

    async def weigh(self, session_id: int, instance: Instance) -> None:
        found = self.board.final_arguments(session_id)
        if Sender.MACHINE not in found or Sender.HUMAN not in found:
            return  # no final distribution to weigh
        if self.judge is None:
            await stored(self.board.store_final, session_id, 1.0, 1.0, EQUAL)
            return
        machine, other = (argument(self.task, found[s]) for s in (Sender.MACHINE, Sender.HUMAN))
        verdict = await self.judge.judge(case_text(self.task, instance), machine, other)
        await stored(self.board.store_final, session_id, *verdict.weights, verdict.method, verdict.reply)

    async def left_over(self, run_id: int, instances: Sequence[Instance]) -> int:
        """Weigh the sessions of run ``run_id`` that ended without (a crash before the judge); how many."""
        by_id = {instance.id: instance for instance in instances}
        pending = self.board.unjudged_sessions(run_id)
        for session_id, instance_id in pending:
            await self.weigh(session_id, by_id[instance_id])
        return len(pending)
