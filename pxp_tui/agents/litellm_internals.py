"""The agents' one door to litellm's private parts: every use of them is here, each saying what it relies on.

litellm documents custom providers (``CustomLLM``, ``litellm.custom_provider_map``) and the response's
cost, but not how a provider gives the caller a value of its own, nor how a provider added after
litellm has loaded is taken in. Each use is checked by a canary test (``tests/app/test_internals.py``) that
names litellm's release when one moves (``litellm>=1.82.1``; ``.ci/oldest.txt`` pins the oldest).

Nothing of litellm is imported with this module (it loads after the app's first paint).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def hidden_params(response: Any) -> Mapping[str, Any]:
    """What litellm keeps beside a response for its caller: ``response_cost`` (litellm's price of the call), and
    what a custom provider put there (the offline model's own time).

    Relies on: ``ModelResponse._hidden_params``, a dict that litellm fills (``response_cost``) and passes
    back with the response; absent or None on an object that is no litellm response.
    """
    return getattr(response, "_hidden_params", None) or {}


def set_hidden_param(response: Any, key: str, value: Any) -> None:
    """Put ``key: value`` beside ``response`` (a custom provider's ``ModelResponse``), for the caller.

    Relies on: ``ModelResponse._hidden_params`` (see :func:`hidden_params`), which litellm keeps, adding its
    own keys, as it hands a custom provider's response back to the caller.
    """
    response._hidden_params[key] = value


def provider_response(kwargs: Mapping[str, Any]) -> Any:
    """The ``ModelResponse`` litellm gives a custom provider's ``completion`` / ``acompletion`` to fill.

    Relies on: litellm calling a ``CustomLLM``'s methods with the keyword argument ``model_response``.
    """
    return kwargs["model_response"]


def take_in_custom_providers() -> None:
    """Make litellm take in ``litellm.custom_provider_map`` as it stands now (a provider added after its load).

    Relies on: ``litellm.utils.custom_llm_setup()``, which litellm runs when it loads and which registers
    every provider of the map.
    """
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
