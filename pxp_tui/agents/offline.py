"""The offline baseline, ``pxp-offline/<name>``: a model that answers chat messages with a deterministic function of
the prompt, and a litellm custom provider of it.

The offline machine goes through the same path as an LLM: its prompt is assembled by the task, answered here
by the function registered for it (by a task, or the offline checker), and the reply text is parsed by the
task. The client (``agents/llm.py``) asks :func:`answered` directly while litellm is not loaded in the
process (so an offline run never waits for litellm's import of several seconds), and through
``litellm.acompletion`` and the provider :func:`install` registers once it is: the same answer, tokens and
time either way. It needs no key and no network. ``PXP_OFFLINE_LATENCY`` (seconds per call, default 0)
simulates a model's latency for tests and benchmarks.

The model's own time (the simulated latency plus ``answer()``'s CPU time in its thread) is reported in
the response's hidden parameters as :data:`MODEL_MS`: what a remote model's round trip is to an LLM,
without litellm's per-call work or the waits of a busy event loop (the app's overhead).
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pxp_tui.agents import litellm_internals
from pxp_tui.common.models import OFFLINE_PROVIDER as PROVIDER

#: the key of the response's hidden parameters (``litellm_internals.hidden_params``) that holds the model's own time (ms)
MODEL_MS = "pxp_model_ms"

#: name -> function from chat messages to reply text
_MODELS: dict[str, Callable[[list[dict[str, Any]]], str]] = {}

#: litellm, once :func:`install` has run (so that models registered later get their price too)
_INSTALLED: list[Any] = []


def register(name: str, answer: Callable[[list[dict[str, Any]]], str]) -> None:
    """Make ``pxp-offline/<name>`` answer prompts with ``answer``."""
    _MODELS[name] = answer
    if _INSTALLED:
        _price(_INSTALLED[0], [name])


def _price(litellm: Any, names: list[str]) -> None:
    """Tell litellm the offline models cost nothing. Without a price, litellm's cost calculator searches its
    model list and its fallbacks on every call for a model it does not know: most of its per-call time."""
    litellm.register_model(
        {
            f"{PROVIDER}/{name}": {
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
                "litellm_provider": PROVIDER,
                "mode": "chat",
            }
            for name in names
        }
    )


def answer(name: str, messages: list[dict[str, Any]]) -> str:
    try:
        fn = _MODELS[name]
    except KeyError:
        known = ", ".join(sorted(_MODELS)) or "none"
        raise ValueError(f"no offline model {name!r} (registered: {known})") from None
    return fn(messages)


def timed_answer(name: str, messages: list[dict[str, Any]]) -> tuple[str, float]:
    """``answer(name, messages)`` and its own time (ms): the CPU time of the thread that runs it, so
    that waits for the interpreter (the app rendering meanwhile) are not counted as the model's."""
    started = time.thread_time()
    text = answer(name, messages)
    return text, (time.thread_time() - started) * 1000


def latency() -> float:
    try:
        return max(0.0, float(os.environ.get("PXP_OFFLINE_LATENCY", "0") or 0))
    except ValueError:
        return 0.0


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """About four characters a token; an image part counts as 85 (a low-detail image)."""
    chars, images = 0, 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
            continue
        for part in content or ():
            if part.get("type") == "text":
                chars += len(part.get("text", ""))
            else:
                images += 1
    return math.ceil(chars / 4) + 85 * images


@dataclass(frozen=True)
class Answered:
    """An offline model's reply: its text, its own time (ms: the latency it simulates and the answer's CPU time)
    and its tokens (estimated, as for a model that reports none)."""

    text: str
    own_ms: float
    prompt_tokens: int
    completion_tokens: int


async def answered(name: str, messages: list[dict[str, Any]]) -> Answered:
    """``pxp-offline/<name>``'s reply to ``messages``, after the simulated latency; the answer in a thread (a
    picture's features, a molecule's templates). ValueError for a model not registered."""
    delay = latency()
    if delay:
        await asyncio.sleep(delay)
    # the model's own time: the latency it simulates and its answer, not the waits for the loop or a thread
    text, took = await asyncio.to_thread(timed_answer, name, messages)
    return Answered(text, delay * 1000 + took, estimate_tokens(messages), math.ceil(len(text) / 4))


#: the model of :func:`warm_up`: it answers nothing, and is registered only for that call
WARM_UP = "warm-up"


def warm_up(litellm: Any) -> None:
    """One call through litellm's whole path, with a model that answers nothing. litellm builds much of what
    a call needs on its first one (imports, pydantic schemas: about 0.25 s here); made once beforehand, in a
    thread, it is not added to the first message of a run. Nothing of it is kept: not a blackboard's business."""
    register(WARM_UP, lambda messages: "")
    try:
        litellm.completion(model=f"{PROVIDER}/{WARM_UP}", messages=[{"role": "user", "content": WARM_UP}])
    except Exception:  # noqa: BLE001 - only a head start: the run's own calls report any real fault
        pass
    finally:
        _MODELS.pop(WARM_UP, None)


def install(litellm: Any) -> None:
    """Register the provider with litellm (idempotent)."""
    from litellm import CustomLLM

    class OfflineLLM(CustomLLM):
        def _reply(self, model: str, model_response: Any, reply: Answered) -> Any:
            model_response.choices[0].message.content = reply.text
            litellm_internals.set_hidden_param(model_response, MODEL_MS, reply.own_ms)
            model_response.model = f"{PROVIDER}/{model}"
            model_response.usage = litellm.Usage(
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                total_tokens=reply.prompt_tokens + reply.completion_tokens,
            )
            return model_response

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            text, took = timed_answer(model, messages)
            reply = Answered(text, took, estimate_tokens(messages), math.ceil(len(text) / 4))
            return self._reply(model, litellm_internals.provider_response(kwargs), reply)

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            reply = await answered(model, messages)
            return self._reply(model, litellm_internals.provider_response(kwargs), reply)

    entries = [e for e in (litellm.custom_provider_map or []) if e.get("provider") != PROVIDER]
    entries.append({"provider": PROVIDER, "custom_handler": OfflineLLM()})
    litellm.custom_provider_map = entries
    litellm_internals.take_in_custom_providers()  # litellm reads the map when it sets up custom providers
    _price(litellm, list(_MODELS))
    _INSTALLED[:] = [litellm]
