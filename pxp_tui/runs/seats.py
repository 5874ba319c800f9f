"""The agents of a run: the machine, the checker (AGREE) it shares with the proxy, and what a human kind is built from."""

from __future__ import annotations

from dataclasses import dataclass

from pxp_tui.agents import offline
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import Debate, MachineAgent
from pxp_tui.blackboard.records import Run
from pxp_tui.common.kinds import HumanKind
from pxp_tui.common.models import checker_model, litellm_model
from pxp_tui.config import RunConfig
from pxp_tui.engine import Agent
from pxp_tui.tasks import SECOND_SUFFIX
from pxp_tui.tasks.base import HUMAN, OTHER_EXPERT, Task


def register_offline_models(task: Task) -> None:
    """Make the task's offline models answer: ``pxp-offline/<task>`` (the baseline machine) and
    ``pxp-offline/<task>-second`` (the human's seat of a machine-machine run). Called where a run's machine is
    built (:func:`build_machine`); a program that calls them without a run calls it first."""
    offline.register(task.name, task.offline_answer)
    offline.register(f"{task.name}{SECOND_SUFFIX}", task.offline_second_answer)


def client(model: str, config: RunConfig, api_base: str | None) -> LLMClient:
    """A model client with the run's limits (``--timeout``, ``--retries``), or the client's defaults."""
    timeout = LLMClient.timeout if config.timeout is None else config.timeout
    retries = LLMClient.retries if config.retries is None else config.retries
    return LLMClient(model, api_base=api_base, timeout=timeout, retries=retries)


def build_machine(task: Task, config: RunConfig) -> tuple[MachineAgent, Checker]:
    """The machine agent and the checker (AGREE) it shares with the proxy.

    ``--api-base`` serves the machine, and the checker when it is the machine's model; a checker of
    another model uses ``--checker-api-base`` (or its provider's default).
    """
    register_offline_models(task)  # the machine, or a second machine in the human's seat, may be the task's offline one
    checker_base = checker_api_base(config)
    settings = {
        k: v for k, v in (("max_tokens", config.checker_max_tokens), ("temperature", config.checker_temperature)) if v is not None
    }
    checker = Checker(
        client(checker_model(config.checker_model), config, checker_base), noun=task.explanation_noun, settings=settings
    )
    generation = dict(task.generation)
    if config.max_tokens is not None:
        generation["max_tokens"] = config.max_tokens
    if config.temperature is not None:
        generation["temperature"] = config.temperature
    other = OTHER_EXPERT if config.human_kind is HumanKind.MODEL else HUMAN
    machine = MachineAgent(
        task,
        client(litellm_model(config.model, task.name), config, config.api_base),
        checker,
        other=other,
        debate=debate_of(config),
        **generation,
    )
    return machine, checker


def checker_api_base(config: RunConfig) -> str | None:
    """The checker's server: ``--checker-api-base``, or ``--api-base`` when the checker is the machine's model."""
    same = config.checker is None or config.checker == config.model
    return config.checker_api_base or (config.api_base if same else None)


def debate_of(config: RunConfig) -> Debate:
    """What the run's settings add to both agents' prompts (issue 10): distributions, contentiousness."""
    return Debate(config.top_k, config.contentiousness, config.contentiousness_decay)


@dataclass(frozen=True)
class Seat:
    """What the agent in the human's seat of a run is built from (see :mod:`pxp_tui.runs.humans`)."""

    run: Run
    task: Task
    machine: MachineAgent
    checker: Checker  # AGREE, shared with the machine
    live: Agent | None = None  # the expert's agent, when the app drives the run

    @property
    def config(self) -> RunConfig:
        """The run's configuration (``run.config``)."""
        return self.run.config

    def client(self, model: str, api_base: str | None = None) -> LLMClient:
        """A client for another model, with the run's limits (a model in the human's seat)."""
        return client(model, self.config, api_base)
