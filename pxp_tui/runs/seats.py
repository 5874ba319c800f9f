"""The agents of a run: the machine, the checker (AGREE) it shares with the proxy, and what a human kind is built from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    offline.register(task.offline_name, task.offline_answer)  # a variant's wording has its own (tasks.get_variant)
    offline.register(f"{task.offline_name}{SECOND_SUFFIX}", task.offline_second_answer)


def client(model: str, config: RunConfig, api_base: str | None) -> LLMClient:
    """A model client with the run's limits (``--timeout``, ``--retries``, ``--max-reply``), or the client's defaults."""
    timeout = LLMClient.timeout if config.timeout is None else config.timeout
    retries = LLMClient.retries if config.retries is None else config.retries
    max_reply = LLMClient.max_reply_kb if config.max_reply is None else config.max_reply
    return LLMClient(model, api_base=api_base, timeout=timeout, retries=retries, max_reply_kb=max_reply)


def build_machine(task: Task, config: RunConfig) -> tuple[MachineAgent, Checker]:
    """The machine agent and the checker (AGREE) it shares with the proxy.

    ``--api-base`` serves the machine, and the checker when it is the machine's model; a checker of
    another model uses ``--checker-api-base`` (or its provider's default).
    """
    register_offline_models(task)  # the machine, or a second machine in the human's seat, may be the task's offline one
    checker_base = checker_api_base(config)
    checker = Checker(
        client(checker_model(config.checker_model), config, checker_base),
        noun=task.explanation_noun,
        settings=checker_settings(config),
    )
    other = OTHER_EXPERT if config.human_kind is HumanKind.MODEL else HUMAN
    machine = MachineAgent(
        task,
        client(litellm_model(config.model, task.offline_name), config, config.api_base),
        checker,
        other=other,
        debate=debate_of(config),
        **generation(task, config),
    )
    return machine, checker


def generation(task: Task, config: RunConfig) -> dict[str, Any]:
    """The machine's generation settings: the task's, then the run's ``--max-tokens`` and ``--temperature``.
    A setting left out is the provider's default."""
    settings = dict(task.generation)
    if config.max_tokens is not None:
        settings["max_tokens"] = config.max_tokens
    if config.temperature is not None:
        settings["temperature"] = config.temperature
    return settings


def checker_settings(config: RunConfig) -> dict[str, Any]:
    """The run's overrides of the checker's settings (``CHECKER_SETTINGS``)."""
    pairs = (("max_tokens", config.checker_max_tokens), ("temperature", config.checker_temperature))
    return {k: v for k, v in pairs if v is not None}


def effective(task: Task, config: RunConfig) -> dict[str, Any]:
    """Every setting the models are called with, as the run records it ("provider default": not sent)."""
    from pxp_tui.agents.checker import CHECKER_SETTINGS

    machine = generation(task, config)
    checker = {**CHECKER_SETTINGS, **checker_settings(config)}
    default = "provider default"
    return {
        "machine": {"model": config.model, **{k: machine.get(k, default) for k in ("temperature", "max_tokens")}},
        "checker": {"model": config.checker_model, **{k: checker.get(k, default) for k in ("temperature", "max_tokens")}},
        "learn": {"metric": config.learn_metric, "rule": config.learn_rule, "first": config.learn_first}
        if config.learn_gate
        else None,
        "prompts": config.prompts,
        "rad_question": config.rad_question if config.task == "rad" else None,
        "drug_match": config.drug_match if config.task == "drug" else None,
        "rad_unnamed": config.rad_unnamed if config.task == "rad" else None,
    }


def checker_api_base(config: RunConfig) -> str | None:
    """The checker's server: ``--checker-api-base``, or ``--api-base`` when the checker is the machine's model."""
    same = config.checker is None or config.checker == config.model
    return config.checker_api_base or (config.api_base if same else None)


def debate_of(config: RunConfig) -> Debate:
    """What the run's settings add to both agents' prompts (EVINCE's debate): distributions, contentiousness."""
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
