"""Runs: configure one, store it, build its agents, and drive it with the engine (headless or in the app)."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from pxp_tui import learn
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.agents.proxy import ProxyHuman
from pxp_tui.blackboard import Blackboard, BlackboardError, WriteError, access
from pxp_tui.common.models import OFFLINE, checker_model, litellm_model
from pxp_tui.engine import Agent, ContextPolicy, Observer, RunSpec, interact
from pxp_tui.tasks import get_task
from pxp_tui.tasks.base import Task

PROXY = "proxy"


@dataclass
class RunConfig:
    """Everything that defines a run (what ``pxp run`` takes). Never holds credentials."""

    task: str = "drug"
    dataset: str | None = None  # None: the task's bundled demo
    model: str = OFFLINE
    checker: str | None = None  # None: the machine's model
    human: str = PROXY  # "proxy", or the live expert's name
    n: int = 10
    k: int = 3
    context: str = "all"
    seed: int | None = None  # None: dataset order
    limit: int | None = None
    split: str = "train"
    api_base: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    experiment: str | None = None
    learn_gate: bool = False  # keep a session's context only if validation accuracy does not drop
    evaluate: bool = False  # measure the machine on the test split (start, after kept sessions, end)
    timeout: float | None = None  # seconds per model call
    retries: int | None = None  # retries of a failed model call
    checker_api_base: str | None = None
    checker_max_tokens: int | None = None
    checker_temperature: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ValueError with a one-line reason for a configuration that cannot run."""
        get_task(self.task)
        if self.n < 1:
            raise ValueError(f"--n must be at least 1, got {self.n}")
        if self.k < 1:
            raise ValueError(f"--k must be at least 1, got {self.k}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {self.limit}")
        ContextPolicy.parse(self.context)
        if not self.human.strip():
            raise ValueError("the human's name is empty")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"--timeout must be more than 0 seconds, got {self.timeout}")
        if self.retries is not None and self.retries < 0:
            raise ValueError(f"--retries must be 0 or more, got {self.retries}")

    @property
    def human_kind(self) -> str:
        return "proxy" if self.human == PROXY else "live"

    @property
    def checker_model(self) -> str:
        return self.checker or self.model


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
    with board.db.atomic():  # a run that cannot be made leaves nothing behind, not even the demo's import
        return _create_run(board, config)


def _create_run(board: Blackboard, config: RunConfig) -> int:
    dataset = ensure_dataset(board, config)
    if config.learn_gate or config.evaluate:
        learn.check(board, dataset, config.split, learn_gate=config.learn_gate, evaluate=config.evaluate, context=config.context)
    options = {k: v for k, v in asdict(config).items() if k not in _COLUMNS and v not in (None, {}, [])}
    fields = {
        "task": config.task,
        "dataset": dataset,
        "model": config.model,
        "checker": config.checker_model,
        "human": config.human,
        "human_kind": config.human_kind,
        "n": config.n,
        "k": config.k,
        "context": str(ContextPolicy.parse(config.context)),
        "seed": config.seed,
        "split": config.split,
        "experiment": config.experiment,
        "options": options,
    }
    return board.create_run(fields, plan(board, config, dataset))


_COLUMNS = {"task", "dataset", "model", "checker", "human", "n", "k", "context", "seed", "split", "experiment"}


def config_of(run: dict[str, Any]) -> RunConfig:
    """The configuration a stored run was made with."""
    options = dict(run.get("options") or {})
    known = set(RunConfig.__dataclass_fields__)
    return RunConfig(
        task=run["task"],
        dataset=run["dataset"],
        model=run["model"],
        checker=run["checker"],
        human=run["human"],
        n=run["n"],
        k=run["k"],
        context=run["context"],
        seed=run["seed"],
        split=run["split"] or "train",
        experiment=run["experiment"],
        **{k: v for k, v in options.items() if k in known and k not in _COLUMNS},
    )


def _client(model: str, config: RunConfig, api_base: str | None) -> LLMClient:
    limits = {k: v for k, v in (("timeout", config.timeout), ("retries", config.retries)) if v is not None}
    return LLMClient(model, api_base=api_base, **limits)


def build_machine(task: Task, config: RunConfig) -> tuple[MachineAgent, Checker]:
    """The machine agent and the checker (AGREE) it shares with the proxy.

    ``--api-base`` serves the machine, and the checker when it is the machine's model; a checker of
    another model uses ``--checker-api-base`` (or its provider's default).
    """
    same = config.checker is None or config.checker == config.model
    checker_base = config.checker_api_base or (config.api_base if same else None)
    settings = {
        k: v for k, v in (("max_tokens", config.checker_max_tokens), ("temperature", config.checker_temperature)) if v is not None
    }
    checker = Checker(
        _client(checker_model(config.checker_model), config, checker_base), noun=task.explanation_noun, settings=settings
    )
    generation = dict(task.generation)
    if config.max_tokens is not None:
        generation["max_tokens"] = config.max_tokens
    if config.temperature is not None:
        generation["temperature"] = config.temperature
    machine = MachineAgent(task, _client(litellm_model(config.model, task.name), config, config.api_base), checker, **generation)
    return machine, checker


def switch_model(board: Blackboard, run_id: int, model: str) -> None:
    """Continue run ``run_id`` with another machine model (its checker too, if it was the machine's).

    Every message records the model that wrote it, so a switch stays visible in the blackboard.
    """
    model = model.strip()
    if not model:
        raise ValueError("the model is empty")
    run = board.run(run_id)
    if run["status"] == "done":
        raise BlackboardError(f"run {run_id} is already finished")
    fields = {"model": model}
    if run["checker"] == run["model"]:
        fields["checker"] = model
    board.update_run(run_id, fields)


async def execute(
    board: Blackboard,
    run_id: int,
    *,
    human: Agent | None = None,
    observer: Observer | None = None,
    on_evaluation: learn.Report | None = None,
) -> None:
    """Run, or resume, run ``run_id`` to its end. A live run needs its ``human`` agent.

    The run's writer lock is held throughout: readers show the run ``running`` while this process
    lives, ``interrupted`` if it dies; a second engine on the same run is refused.
    """
    with board.writing(run_id):
        await _execute(board, run_id, human=human, observer=observer, on_evaluation=on_evaluation)


async def _execute(
    board: Blackboard, run_id: int, *, human: Agent | None, observer: Observer | None, on_evaluation: learn.Report | None
) -> None:
    run = board.run(run_id)
    if run["status"] == "done":
        raise BlackboardError(f"run {run_id} is already finished")
    config = config_of(run)
    task = get_task(config.task)
    instances = board.instances(run["plan"])
    machine, checker = build_machine(task, config)
    if config.human_kind == "proxy":
        human = ProxyHuman(task, checker)
    elif human is None:
        raise BlackboardError(f"run {run_id} has a live human ({config.human}): open it in the app")
    spec = RunSpec(run_id=run_id, n=config.n, k=config.k, context=config.context)
    progress = board.progress(run_id, instances)
    gate = None
    if config.learn_gate or config.evaluate:
        gate = learn.Learn(board, run, machine, learn_gate=config.learn_gate, evaluate=config.evaluate, report=on_evaluation)
        progress = await gate.before(instances, progress)
    try:
        await interact(spec, instances, machine, human, board, progress=progress, observer=observer, gate=gate)
    except sqlite3.Error as exc:  # the blackboard refused a write: its transaction was rolled back whole
        raise _write_failed(board, run_id, exc) from None
    if gate is not None:
        await gate.after(instances)


def _write_failed(board: Blackboard, run_id: int, exc: sqlite3.Error) -> WriteError:
    """The run marked paused with SQLite's reason in words ("the disk is full (...)"), if the file takes that much."""
    why = access.describe(exc)
    try:
        board.set_status(run_id, "paused", why)
    except sqlite3.Error:
        # a full disk: copy the journal into the file and start it over, so that the status update
        # reuses the journal's space rather than growing it; if even that fails the status stays as
        # the engine left it (every committed message is kept either way)
        try:
            board.db.execute("PRAGMA wal_checkpoint(RESTART)")
            board.set_status(run_id, "paused", why)
        except sqlite3.Error:
            pass
    return WriteError(why)
