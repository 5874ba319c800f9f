"""Machine performance: its first answer on held-out instances, given a context, against the references.

Each instance is asked as the first message of a session would be (the same prompt assembly,
conditioned on the given earlier sessions), then judged: prediction accuracy is the task's MATCH
with the reference prediction, explanation agreement the checker's AGREE with the reference
explanation, "both" the two together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pxp_tui.agents.llm import totals
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.instance import Instance
from pxp_tui.engine import SessionRecord, Turn

#: requests to the model under way at once during a measurement
CONCURRENCY = 4


async def judge(machine: MachineAgent, instance: Instance, prior: Sequence[SessionRecord]) -> dict[str, Any]:
    """The machine's first answer on ``instance`` and how it compares with the reference."""
    turn = Turn(0, 0, instance, 0, 1, 1, 1, 1, (), prior)
    (prediction, explanation), completion, failures = await machine.ask(turn)
    reference_prediction, reference_explanation = machine.task.reference(instance)
    agreed, check = await machine.checker.agree(explanation, reference_explanation)
    latency, cost = totals([completion, *failures, *([check] if check else [])])
    return {
        "instance_id": instance.id,
        "prediction": prediction,
        "explanation": explanation,
        "correct": machine.task.match(prediction, reference_prediction),
        "agreed": agreed,
        "latency_ms": latency,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cost": cost,
    }


async def measure(
    machine: MachineAgent, instances: Sequence[Instance], prior: Sequence[SessionRecord], *, concurrency: int = CONCURRENCY
) -> list[dict[str, Any]]:
    """Every instance judged (in order), at most ``concurrency`` at a time; the first failure is raised."""
    gate = asyncio.Semaphore(concurrency)

    async def one(instance: Instance) -> dict[str, Any]:
        async with gate:
            return await judge(machine, instance, prior)

    results = await asyncio.gather(*(one(i) for i in instances), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)  # type: ignore[arg-type]
