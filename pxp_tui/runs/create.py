"""Creating a run: its dataset (the task's demo, imported on first use), its plan, its row in the blackboard."""

from __future__ import annotations

import random
from dataclasses import replace

from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.config import RunConfig
from pxp_tui.engine import ContextPolicy
from pxp_tui.runs import learn
from pxp_tui.tasks import get_task


def demo_dataset(task: str) -> str:
    return f"demo-{task}"


def ensure_dataset(board: Blackboard, config: RunConfig) -> str:
    """The run's dataset name, importing the task's bundled demo into the blackboard if needed."""
    task = get_task(config.task)
    name = config.dataset or demo_dataset(config.task)
    if board.has_dataset(name):
        held = board.dataset_task(name)
        if held != config.task:
            raise BlackboardError(f"dataset {name!r} is for the {held} task, not {config.task}")
        return name
    if config.dataset is not None:
        raise BlackboardError(f"no dataset {name!r} in the blackboard (see `pxp datasets`, `pxp import`)")
    board.add_dataset(name, config.task, task.demo_rows(), source="bundled demo", description=task.title)
    return name


def plan(board: Blackboard, config: RunConfig, dataset: str) -> list[int]:
    """The instances of the run, in session order."""
    ids = board.instance_ids(dataset, config.split) or board.instance_ids(dataset)
    if config.seed is not None:
        random.Random(config.seed).shuffle(ids)
    if config.limit is not None:
        ids = ids[: config.limit]
    if not ids:
        raise BlackboardError(f"dataset {dataset!r} has no instances")
    return ids


def create_run(board: Blackboard, config: RunConfig) -> int:
    """Validate ``config``, store the run (status ``created``) and return its id."""
    config.validate()
    with board.transaction():  # a run that cannot be made leaves nothing behind, not even the demo's import
        return _create_run(board, config)


def _create_run(board: Blackboard, config: RunConfig) -> int:
    dataset = ensure_dataset(board, config)
    if config.learn_gate or config.evaluate:
        learn.check_held_out(
            board, dataset, config.split, learn_gate=config.learn_gate, evaluate=config.evaluate, context=config.context
        )
    order = config.label_order()
    stored = replace(  # as it is stored: its dataset, checker, expert and ground metric named, its context normalised
        config,
        dataset=dataset,
        checker=config.checker_model,
        expert=config.expert.strip() if config.expert else None,
        context=str(ContextPolicy.parse(config.context)),
        ground_metric="ordered" if order else "discrete",
    )
    return board.create_run(stored, plan(board, config, dataset), label_order=order)
