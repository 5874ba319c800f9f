"""Model calls through litellm: lazy import, retries with backoff, usage and cost."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pxp_tui.agents import litellm_internals, offline
from pxp_tui.agents.offline import MODEL_MS as OFFLINE_MODEL_MS
from pxp_tui.common.models import OFFLINE_PROVIDER, is_offline
from pxp_tui.common.redaction import redact
from pxp_tui.engine import AgentError

if TYPE_CHECKING:
    from pxp_tui.agents.reply_cap import ReplyTooLargeError

#: the key sent to a local OpenAI-compatible server (``--api-base``) when no OPENAI_API_KEY is set
LOCAL_KEY = "no-key"
#: the largest reply read, in KB of UTF-8 (``--max-reply``): a larger one is not read, but refused as an unparseable
#: reply (asked again, then the run pauses). A prediction and its explanation take a few KB; a reply of megabytes is a
#: broken or hostile server (a ``max_tokens`` ignored), and would be sent back to the models with every later request
MAX_REPLY_KB = 256

_litellm: Any = None
_loading = threading.Lock()  # held for the import
_starting = threading.Lock()  # held for a moment: whether the import's thread is started
_started: list[threading.Thread] = []


def load_litellm() -> Any:
    """Import litellm once, with the local price list (no download, no warnings at import). Several threads may
    ask at once: one imports, the others wait for it."""
    global _litellm
    with _loading:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            load_dotenv()
            import litellm

            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                logging.getLogger(name).setLevel(logging.ERROR)  # its warnings would land in the terminal
            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.drop_params = True  # e.g. temperature for models that refuse it
            offline.install(litellm)
            from pxp_tui.agents import reply_cap  # httpx, which litellm has imported

            reply_cap.install(litellm)
            _litellm = litellm
    return _litellm


def litellm_loaded() -> bool:
    """Whether litellm has been imported (by :func:`load_litellm`) in this process."""
    return _litellm is not None


def start_loading_litellm() -> None:
    """Import litellm in a thread of its own from now (once; several seconds): a model's first call then waits for
    what is left of the import, not for all of it.

    Not a daemon: the process waits for it at exit. Stopped half-way, it would hold the import lock while
    litellm's clients, collected at interpreter shutdown, import a module of their own: the process then
    never ends."""
    with _starting:
        if _litellm is not None or _started:
            return
        thread = threading.Thread(target=_load_and_warm_up, name="pxp-litellm-import")
        _started.append(thread)
    thread.start()


def _load_and_warm_up() -> None:
    # litellm builds much of what a call needs on its first one (about 0.25 s): made here, not in the first message
    offline.warm_up(load_litellm())


async def litellm_ready() -> Any:
    """litellm, imported in a thread if it is not yet (never on the caller's event loop)."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(load_litellm)


#: the variables of a ``.env`` file that are read: providers' keys (a base URL there is not: it would send the key elsewhere)
DOTENV_KEYS = re.compile(
    r"[A-Z][A-Z0-9_]*_(?:API_KEY|API_TOKEN|AUTH_TOKEN)|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AZURE_AD_TOKEN|HF_TOKEN"
)
#: set to ``all`` in the environment (not in ``.env``) to read every variable of ``.env``, base URLs included
DOTENV_SETTING = "PXP_DOTENV"


def load_dotenv(path: str = ".env") -> list[str]:
    """Providers' keys from ``.env`` in the working directory, never overriding the environment.

    Only variables named like a key (:data:`DOTENV_KEYS`) are read: a ``.env`` in a folder someone else
    prepared could otherwise point ``OPENAI_API_BASE`` at their server and receive the user's key. A base URL
    is given with ``--api-base``, or read from ``.env`` with ``PXP_DOTENV=all`` in the environment.
    Returns the names of the variables left out.
    """
    if not os.path.isfile(path):
        return []
    try:
        from dotenv import dotenv_values
    except ImportError:  # pragma: no cover - python-dotenv is a dependency
        return []
    read_all = os.environ.get(DOTENV_SETTING, "").strip().lower() == "all"
    ignored = []
    for name, value in dotenv_values(path).items():
        if value is None or name in os.environ:
            continue
        if read_all or DOTENV_KEYS.fullmatch(name):
            os.environ[name] = value
        else:
            ignored.append(name)
    return ignored


@dataclass(frozen=True)
class Completion:
    """A model's reply and what it cost.

    ``latency_ms`` is the model's own time: for the offline baseline, what its provider reports (the
    simulated latency and its answer); for other models, the round trip of ``litellm.acompletion``
    (which is the model's, network included). ``call_ms`` is the whole call as the app waited for it,
    so ``call_ms - latency_ms`` is the app's overhead (litellm's per-call work, a thread hop, a busy loop).
    """

    text: str
    model: str
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    attempts: int = 1
    call_ms: float | None = None  # None: the same as latency_ms
    #: why the reply has no text to read ("the reply has no choices", or its size over ``--max-reply``): it is read
    #: as an unparseable reply
    unread: str = ""

    @property
    def overhead_ms(self) -> float:
        """The app's time in the call beyond the model's own (never negative)."""
        return max(0.0, (self.call_ms if self.call_ms is not None else self.latency_ms) - self.latency_ms)


def totals(calls: Sequence[Completion]) -> tuple[float, float | None]:
    """The calls' total latency (ms, the models' own time), and their total cost (None when no call's cost is known)."""
    costs = [c.cost for c in calls if c.cost is not None]
    return sum(c.latency_ms for c in calls), (sum(costs) if costs else None)


def overhead(calls: Sequence[Completion]) -> float:
    """The app's overhead in the calls (ms): their wall time beyond the models' own."""
    return sum(c.overhead_ms for c in calls)


class ReplyTimeoutError(Exception):
    """A reply that did not arrive whole within the client's timeout (however fast its first bytes came)."""


@dataclass
class LLMClient:
    """One model, called through ``litellm.acompletion`` with bounded retries.

    Timeouts, rate limits (429), connection and server errors are retried with exponential backoff
    (``retry_delay * 2**attempt``); after ``retries`` retries, or at once for errors that retrying
    cannot fix (authentication, bad request, unknown model), an :class:`AgentError` names the cause.
    """

    model: str
    api_base: str | None = None
    timeout: float = 120.0
    retries: int = 3
    retry_delay: float = field(default_factory=lambda: float(os.environ.get("PXP_RETRY_DELAY", "1.0")))
    params: dict[str, Any] = field(default_factory=dict)
    max_reply_kb: int = MAX_REPLY_KB  # the largest reply read (a larger one is refused: :data:`MAX_REPLY_KB`)

    def __post_init__(self) -> None:
        if not is_offline(self.model):
            start_loading_litellm()  # its first call waits for what is left of the import, not all of it

    async def backoff(self, attempt: int) -> None:
        """Wait before retry ``attempt`` (none before the first): ``retry_delay * 2**(attempt - 1)``."""
        if attempt:
            await asyncio.sleep(self.retry_delay * 2 ** (attempt - 1))

    async def _whole(self, reply: Coroutine[Any, Any, Any]) -> Any:
        """``reply`` awaited whole within the timeout (litellm's own bounds each read: a reply may trickle in).

        On Python 3.11 a deadline on this task (``asyncio.timeout``): no task of its own, so that a
        cancellation reaches the call at once; before, ``asyncio.wait_for``.
        """
        deadline = getattr(asyncio, "timeout", None)
        if deadline is None:  # pragma: no cover - Python 3.10
            return await asyncio.wait_for(reply, self.timeout)
        async with deadline(self.timeout):
            return await reply

    async def complete(self, messages: list[dict[str, Any]], **params: Any) -> Completion:
        if is_offline(self.model) and not litellm_loaded():
            return await self._offline(messages)  # the same answer as through litellm, without waiting for its import
        litellm = await litellm_ready()
        kwargs = {**self.params, **params, "timeout": self.timeout}
        if self.api_base and not is_offline(self.model):
            kwargs["api_base"] = self.api_base
        if not is_offline(self.model):
            kwargs["max_retries"] = 0  # the provider SDK's own retries would hide failures from ours
        if self.api_base and self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = LOCAL_KEY  # local OpenAI-compatible servers want a key, any key
        from pxp_tui.agents import reply_cap

        last: BaseException | None = None
        reply_cap.LIMIT.set(reply_cap.body_limit(self.max_reply_kb))  # this task's calls: the answer read no further
        for attempt in range(self.retries + 1):
            await self.backoff(attempt)
            started = time.perf_counter()
            try:
                response = await self._whole(litellm.acompletion(model=self.model, messages=messages, **kwargs))
            except asyncio.CancelledError:
                raise
            except asyncio.TimeoutError:
                last = ReplyTimeoutError(f"no whole reply within {self.timeout:g} s")
                continue
            except Exception as exc:  # noqa: BLE001 - classified below
                too_large = reply_cap.found(exc)
                if too_large is not None:  # as a text over the limit: an unparseable reply, asked again by the agent
                    latency = (time.perf_counter() - started) * 1000
                    unread = refused_unread(too_large, self.max_reply_kb)
                    return Completion("", self.model, latency, attempts=attempt + 1, call_ms=latency, unread=unread)
                last = exc
                if not _retryable(litellm, exc):
                    raise AgentError(_cause(self.model, exc), retryable=False) from None
                continue
            latency = (time.perf_counter() - started) * 1000
            return _completion(litellm, self.model, response, latency, attempt + 1, messages, self.max_reply_kb)
        attempts = self.retries + 1
        raise AgentError(f"{_cause(self.model, last)} (after {attempts} attempt{'s' if attempts != 1 else ''})")

    async def _offline(self, messages: list[dict[str, Any]]) -> Completion:
        """The offline model's reply, asked of it directly (``agents/offline.py``): what the same call through
        litellm gives (its text, tokens, time, no cost), as a model answers whatever the parameters."""
        name = self.model.removeprefix(f"{OFFLINE_PROVIDER}/")
        started = time.perf_counter()
        try:
            reply = await self._whole(offline.answered(name, messages))
        except asyncio.CancelledError:
            raise
        except asyncio.TimeoutError:
            raise AgentError(_cause(self.model, ReplyTimeoutError(f"no whole reply within {self.timeout:g} s"))) from None
        except Exception as exc:  # noqa: BLE001 - a model not registered, a fault of the baseline: it would not go away
            raise AgentError(f"{self.model}: {redact(str(exc))}", retryable=False) from None
        wall = (time.perf_counter() - started) * 1000
        empty = "" if reply.text else "the reply has no text"
        return Completion(
            reply.text, self.model, min(reply.own_ms, wall), reply.prompt_tokens, reply.completion_tokens, 0.0, 1, wall, empty
        )


def _missing_key(exc: BaseException) -> bool:
    """The provider SDK refused to send a request without a key (litellm reports it as a server error)."""
    text = str(exc)
    return "Missing credentials" in text or "api_key client option must be set" in text


def _retryable(litellm: Any, exc: BaseException) -> bool:
    if _missing_key(exc):
        return False
    permanent = (
        litellm.AuthenticationError,
        litellm.PermissionDeniedError,
        litellm.NotFoundError,
        litellm.BadRequestError,
        litellm.ContextWindowExceededError,
        litellm.ContentPolicyViolationError,
        litellm.UnsupportedParamsError,
    )
    if isinstance(exc, permanent):
        return False
    transient = (
        litellm.Timeout,
        litellm.RateLimitError,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
        litellm.APIError,
    )
    return isinstance(exc, transient)


def _cause(model: str, exc: BaseException | None) -> str:
    if exc is None:
        return f"{model}: no answer"
    kinds = {
        "Timeout": "timed out",
        "ReplyTimeoutError": "timed out",
        "RateLimitError": "rate limited (429)",
        "AuthenticationError": "authentication failed (check the provider's API key variable)",
        "NotFoundError": "model not found",
        "APIConnectionError": "could not connect",
        "InternalServerError": "server error",
        "ServiceUnavailableError": "service unavailable",
        "BadGatewayError": "bad gateway",
        "BadRequestError": "bad request",
    }
    kind = kinds.get(type(exc).__name__, type(exc).__name__)
    if "Connection error" in str(exc):  # litellm reports a refused connection as a server error
        kind = "could not connect (is the server running?)"
    if _missing_key(exc):
        kind = "no API key (set the provider's key variable, in the environment or a .env file)"
    detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else "")
    if len(detail) > 300:
        detail = detail[:297] + "..."
    return f"{model}: {kind}" + (f": {detail}" if detail else "")


def oversized(text: str, max_kb: int) -> str:
    """Why ``text`` is too large to read ("the reply is 10.8 MB, over the limit of 256 KB (--max-reply): 'Pathway...'");
    "" when it is within ``max_kb`` KB of UTF-8."""
    limit = max_kb * 1024
    if len(text) * 4 <= limit:  # a character is at most 4 bytes: no need to count them
        return ""
    size = utf8_size(text)
    if size <= limit:
        return ""
    start = " ".join(text[:200].split())[:60]
    return f"the reply is {_size(size)}, over the limit of {max_kb:,} KB (--max-reply), beginning {start!r}"


def refused_unread(too_large: ReplyTooLargeError, max_kb: int) -> str:
    """Why an answer refused as it arrived was not read ("the reply is 9.5 MB, over the limit of 256 KB (--max-reply),
    refused unread"; "more than 1.6 MB" when the server did not say its length; or that it came compressed)."""
    if too_large.encoding:
        return f"the reply came compressed ({too_large.encoding}) though asked not to be: its size has no bound, refused unread"
    size = _size(too_large.size) if too_large.size is not None else f"more than {_size(too_large.limit)}"
    return f"the reply is {size}, over the limit of {max_kb:,} KB (--max-reply), refused unread"


def utf8_size(text: str) -> int:
    """``len(text.encode())``, without a copy of a large text held at once (a megabyte at a time)."""
    if text.isascii():
        return len(text)
    step = 2**20
    return sum(len(text[at : at + step].encode("utf-8", "surrogatepass")) for at in range(0, len(text), step))


def _size(size: int) -> str:
    return f"{size / 2**20:.1f} MB" if size >= 2**20 else f"{size / 1024:.0f} KB"


def _completion(
    litellm: Any,
    model: str,
    response: Any,
    latency_ms: float,
    attempts: int,
    messages: list[dict[str, Any]],
    max_kb: int = MAX_REPLY_KB,
) -> Completion:
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    text = getattr(message, "content", None) or ""
    unread = oversized(text, max_kb)
    if unread:
        text = ""  # refused unread: neither parsed, nor stored, nor shown, nor counted in tokens
    elif not text:
        unread = "the reply has no choices" if not choices else "the reply has no text"
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if not prompt and not is_offline(model):  # the server reported no usage: litellm's count
        prompt, completion = _count_tokens(litellm, model, messages, text)
    hidden = litellm_internals.hidden_params(response)
    cost = hidden.get("response_cost")
    if cost is None and not is_offline(model):
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # noqa: BLE001 - unknown price: leave it unknown
            cost = None
    if is_offline(model):
        cost = 0.0
    own = hidden.get(OFFLINE_MODEL_MS)  # the offline provider's own time; other models: the round trip
    if isinstance(own, (int, float)):
        return Completion(text, model, min(float(own), latency_ms), prompt, completion, cost, attempts, latency_ms, unread)
    return Completion(text, model, latency_ms, prompt, completion, cost, attempts, latency_ms, unread)


def _count_tokens(litellm: Any, model: str, messages: list[dict[str, Any]], text: str) -> tuple[int | None, int | None]:
    try:
        prompt = litellm.token_counter(model=model, messages=messages)
        completion = litellm.token_counter(model=model, text=text, count_response_tokens=True)
    except Exception:  # noqa: BLE001 - no tokenizer for this model: leave it unknown
        return None, None
    return prompt, completion
