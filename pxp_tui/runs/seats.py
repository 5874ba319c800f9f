"""The agents of a run: the machine, the checker (AGREE) it shares with the proxy, and the human."""

from __future__ import annotations

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.models import checker_model, litellm_model
from pxp_tui.runs.config import RunConfig
from pxp_tui.tasks.base import Task


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
