"""Experiments: ``R`` repeated runs of one configuration, driven concurrently in one event loop.

Each repetition is a run of its own in the blackboard, all sharing the run's ``experiment`` id. The
runs are asyncio tasks on one loop sharing one connection: every message is still one transaction,
committed before the next agent of that run is asked (a transaction never spans an ``await``), and
while one run waits for its model the others proceed, so ``R`` runs take about the time of one when
the model's latency dominates.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace

from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.engine import Observer
from pxp_tui.engine.writes import Store, stored
from pxp_tui.runs.create import create_run
from pxp_tui.runs.execute import execute


def new_experiment_id(config: RunConfig) -> str:
    return f"{config.task}-{uuid.uuid4().hex[:8]}"


def create_experiment(board: Blackboard, config: RunConfig, repeat: int) -> tuple[str, list[int]]:
    """Store ``repeat`` runs of ``config`` under one experiment id (``config.experiment`` or a new one)."""
    if repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {repeat}")
    config.validate()
    experiment = config.experiment or new_experiment_id(config)
    same = replace(config, experiment=experiment)
    return experiment, [create_run(board, same) for _ in range(repeat)]


async def execute_all(
    board: Blackboard,
    run_ids: Sequence[int],
    observer_for: Callable[[int], Observer | None] = lambda run_id: None,
    store: Store = stored,
) -> dict[int, BaseException | None]:
    """Run (or resume) these runs concurrently; return each run's exception, or None if it finished.

    One run failing (its model, say) pauses that run only; the others go on. ``store``: how their writes are
    awaited (see :func:`~pxp_tui.runs.execute.execute`).
    """
    tasks = [execute(board, run_id, observer=observer_for(run_id), store=store) for run_id in run_ids]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    outcome: dict[int, BaseException | None] = {}
    for run_id, result in zip(run_ids, results, strict=True):
        if isinstance(result, (KeyboardInterrupt, asyncio.CancelledError)):
            raise result
        outcome[run_id] = result if isinstance(result, BaseException) else None
    return outcome
