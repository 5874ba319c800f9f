"""EVINCE's CRIT each round, and the final distribution weighed when a session ends (paper 003, Figure 1).

Every round of two distributions is judged by the run's CRIT judge (:mod:`pxp_tui.agents.crit`, the
checker's model; ``offline``: the offline heuristic stand-in) before its closing message is committed:
the verdict is stored with that message (``messages.crit``), Figure 1's stop rule compares it round to
round, and the last round's scores weigh the final distribution. Rounds are judged when the run's final
weights are ``crit`` or its stop rule is Figure 1's.

The blackboard stores, with a session's last message, both agents' latest distributions combined with
equal weights and marked ``equal (not judged)`` (:mod:`pxp_tui.blackboard.finals`). Right after, the
:class:`Weigher` stores it again, weighted by the last judged round's scores (``--final-weights equal``:
equally) and combined by the run's ``--aggregation`` (EnToPPS when the agents' top-k sets differ). A run
resumed after a crash between a session's end and its weighing first weighs what was left.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from pxp_tui.agents.crit import Argument, Judge
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.common.models import judge_model
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message, SessionRecord
from pxp_tui.engine.interact import RoundJudge
from pxp_tui.engine.types import distribution_of
from pxp_tui.engine.writes import Store, stored
from pxp_tui.protocol import Sender
from pxp_tui.protocol.evince import EQUAL, FIG1
from pxp_tui.runs.seats import checker_api_base, client
from pxp_tui.tasks.base import Task


def judges_rounds(config: RunConfig) -> bool:
    """Whether the run's rounds are judged: it asks for distributions, and CRIT weighs its final
    distributions or Figure 1's stop rule reads it."""
    fig1 = config.stop != "pxp" and config.evince_rule == FIG1
    return config.top_k is not None and (config.final_weights != EQUAL or fig1)


def judge_of(task: Task, config: RunConfig) -> Judge | None:
    """The run's CRIT judge: the checker's model, on the checker's server (None: the run judges nothing)."""
    if not judges_rounds(config) and config.final_weights == EQUAL:
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


def _weights(crit: Mapping[str, Any] | None) -> tuple[float, float, str] | None:
    """The machine's and the other's CRIT scores of a stored round verdict, and its method (None: no scores)."""
    if not crit or crit.get("machine") is None or crit.get("human") is None:
        return None
    machine, human = float(crit["machine"]), float(crit["human"])
    if machine + human <= 0:
        return None
    return machine, human, str(crit.get("method") or "crit")


class Weigher:
    """Judges each round (CRIT) and weighs each ended session's final distribution."""

    def __init__(
        self, board: Blackboard, task: Task, judge: Judge | None, config: RunConfig | None = None, *, store: Store = stored
    ) -> None:
        self.board = board
        #: how its writes are awaited (the engine's :data:`~pxp_tui.engine.interact.Store`)
        self.store = store
        self.task = task
        self.judge = judge
        self.config = config or RunConfig(task=task.name)

    def round_judge(self) -> RoundJudge | None:
        """The engine's hook that judges each round, or None when the run's rounds are not judged."""
        if self.judge is None or not judges_rounds(self.config):
            return None
        return self.judge_round

    async def judge_round(self, instance: Instance, machine: Message, other: Message) -> dict[str, Any]:
        """CRIT of a round (the machine's message and the other's answer), as ``meta`` of the closing message."""
        assert self.judge is not None
        verdict = await self.judge.judge(case_text(self.task, instance), argument(self.task, machine), argument(self.task, other))
        return {"crit": json.dumps(verdict.stored(), ensure_ascii=False)}

    async def session_ended(self, record: SessionRecord) -> None:
        """The engine's hook: a session ended (and was committed)."""
        await self.weigh(record.session_id, record.instance)

    async def weigh(self, session_id: int, instance: Instance) -> None:
        found = self.board.final_arguments(session_id)
        if Sender.MACHINE not in found or Sender.HUMAN not in found:
            return  # no final distribution to weigh
        aggregation, k = self.config.aggregation, self.config.top_k
        if self.config.final_weights == EQUAL:
            await self.store(partial(self.board.store_final, session_id, 1.0, 1.0, EQUAL, aggregation=aggregation, k=k))
            return
        crit = self.board.latest_crit(session_id)
        weights = _weights(crit)
        if weights is None and crit is None and self.judge is not None:
            # no round was judged (a run stored before rounds were): judge the last arguments once
            machine, other = (argument(self.task, found[s]) for s in (Sender.MACHINE, Sender.HUMAN))
            verdict = await self.judge.judge(case_text(self.task, instance), machine, other)
            crit = verdict.stored()
            weights = _weights(crit)
        if weights is None:
            why = str((crit or {}).get("method") or "no round was judged")
            method = f"{EQUAL} ({why.removeprefix('none ').strip('()')})"
            await self.store(partial(self.board.store_final, session_id, 1.0, 1.0, method, aggregation=aggregation, k=k))
            return
        await self.store(
            partial(self.board.store_final, session_id, weights[0], weights[1], weights[2], aggregation=aggregation, k=k)
        )

    async def left_over(self, run_id: int, instances: Sequence[Instance]) -> int:
        """Weigh the sessions of run ``run_id`` that ended without (a crash before the weighing); how many."""
        by_id = {instance.id: instance for instance in instances}
        pending = self.board.unjudged_sessions(run_id)
        for session_id, instance_id in pending:
            await self.weigh(session_id, by_id[instance_id])
        return len(pending)
