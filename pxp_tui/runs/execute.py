"""Driving a run with the engine, headless or in the app, and continuing it with another model."""

from __future__ import annotations

import sqlite3

from pxp_tui.blackboard import Blackboard, BlackboardError, WriteError, access
from pxp_tui.engine import Agent, Observer, RunSpec, interact
from pxp_tui.engine.writes import Store, stored
from pxp_tui.runs import final, learn
from pxp_tui.runs.copies import check_resumable
from pxp_tui.runs.humans import build_human
from pxp_tui.runs.seats import Seat, build_machine
from pxp_tui.runs.variants import task_of


def switch_model(board: Blackboard, run_id: int, model: str) -> None:
    """Continue run ``run_id`` with another machine model (its checker too, if it was the machine's).

    Every message records the model that wrote it, so a switch stays visible in the blackboard.
    """
    model = model.strip()
    if not model:
        raise ValueError("the model is empty")
    run = board.run(run_id)
    if run.finished:
        raise BlackboardError(f"run {run_id} is already finished")
    fields = {"model": model}
    if run.config.checker == run.config.model:
        fields["checker"] = model
    board.update_run(run_id, fields)


async def execute(
    board: Blackboard,
    run_id: int,
    *,
    human: Agent | None = None,
    observer: Observer | None = None,
    on_evaluation: learn.OnMeasurement | None = None,
    store: Store = stored,
) -> None:
    """Run, or resume, run ``run_id`` to its end. A live run needs its ``human`` agent.

    The run's writer lock is held throughout: readers show the run ``running`` while this process
    lives, ``interrupted`` if it dies; a second engine on the same run is refused. ``store``: how the
    run's writes are awaited (by default in a worker thread, so that the app's loop goes on; a headless run passes
    ``engine.interact.at_once``, which costs a message no more than its commit).
    """
    with board.writing(run_id):
        await _execute(board, run_id, human=human, observer=observer, on_evaluation=on_evaluation, store=store)


async def _execute(
    board: Blackboard,
    run_id: int,
    *,
    human: Agent | None,
    observer: Observer | None,
    on_evaluation: learn.OnMeasurement | None,
    store: Store,
) -> None:
    run = board.run(run_id)
    if run.finished:
        raise BlackboardError(f"run {run_id} is already finished")
    check_resumable(run)
    config = run.config
    task = task_of(config, board, config.dataset or "")
    instances = board.instances(run.plan)
    machine, checker = build_machine(task, config)
    agent = build_human(config.human_kind, Seat(run, task, machine, checker, live=human))
    spec = RunSpec(
        run_id=run_id,
        n=config.n,
        k=config.k,
        context=config.context,
        stop=config.stop,
        order=run.label_order,
        evince_rule=config.evince_rule,
        tolerance=config.stop_tolerance,
        smoothing=config.smoothing,
        evince_mi=config.evince_mi,
    )
    progress = board.progress(run_id, instances)
    judge = final.judge_of(task, config)
    weights = final.Weigher(board, task, judge, config, store=store)
    gate = None
    if config.learn_gate or config.evaluate:
        gate = learn.Learn(
            board, run, machine, learn_gate=config.learn_gate, evaluate=config.evaluate, report=on_evaluation,
            metric=config.learn_metric, rule=config.learn_rule, first=config.learn_first,
        )  # fmt: skip
        progress = await gate.before(instances, progress)
    try:
        await weights.left_over(run_id, instances)  # sessions a crash left between their end and their judge
        await interact(
            spec,
            instances,
            machine,
            agent,
            board,
            progress=progress,
            observer=observer,
            gate=gate,
            ended=weights.session_ended,
            judge=weights.round_judge(),
            store=store,
        )
    except sqlite3.Error as exc:  # the blackboard refused a write: its transaction was rolled back whole
        raise await _write_failed(board, run_id, exc, store) from None
    if gate is not None:
        await gate.after(instances)


async def _write_failed(board: Blackboard, run_id: int, exc: sqlite3.Error, store: Store) -> WriteError:
    """The run marked paused with SQLite's reason in words ("the disk is full (...)"), if the file takes that much."""
    why = access.describe_error(exc)
    await store(board.pause_after_failed_write, run_id, why)
    return WriteError(why)
