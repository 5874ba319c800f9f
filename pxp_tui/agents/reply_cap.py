"""A model server's answer read no further than a reply within ``--max-reply`` can take.

``--max-reply`` bounds the reply's text (:data:`pxp_tui.agents.llm.MAX_REPLY_KB`); the text arrives inside the
server's JSON, where an escaped character takes up to six bytes. An answer larger than that could hold is refused
as it arrives: before a byte of it is read when the server says its length, else once that many bytes have come.
litellm's OpenAI-compatible path (OpenAI, ``--api-base`` servers: vLLM, LM Studio, Ollama's OpenAI API) reads
through the client given here (``litellm.aclient_session``, litellm's public setting); without it, litellm reads a
10 MB answer whole into about four copies before pxp sees its text. Other providers' answers are read whole and
their text measured after (:func:`pxp_tui.agents.llm.oversized`). Imported once litellm is (httpx with it).
"""

from __future__ import annotations

import asyncio
import contextvars
import re
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx

#: the bytes of JSON around a reply's text (the reply's id, model, usage...), beyond its escaped text
ENVELOPE = 64 * 1024
#: the most bytes of JSON one byte of UTF-8 text can take: a control character as ``\u0001``
ESCAPED = 6


def body_limit(max_kb: int) -> int:
    """The largest answer (bytes) that a reply of at most ``max_kb`` KB of UTF-8 text can come in."""
    return max_kb * 1024 * ESCAPED + ENVELOPE


#: the largest answer a reply within ``--max-reply``'s default (256 KB) takes
DEFAULT_LIMIT = body_limit(256)
#: the largest answer read in the current call (:meth:`pxp_tui.agents.llm.LLMClient.complete` sets the run's)
LIMIT: contextvars.ContextVar[int] = contextvars.ContextVar("pxp_reply_body_limit", default=DEFAULT_LIMIT)


class ReplyTooLargeError(Exception):
    """The server's answer is over :data:`LIMIT`: ``size`` its length (None: unknown, more than ``limit``); or it
    came compressed (``encoding``) though asked not to be, so that its size once decoded has no bound."""

    def __init__(self, size: int | None, limit: int, encoding: str = "") -> None:
        self.size, self.limit, self.encoding = size, limit, encoding
        if encoding:
            super().__init__(f"the server's answer came compressed ({encoding}) though asked not to be")
            return
        said = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
        super().__init__(f"the server's answer is {said}, over the {limit:,} bytes a reply within --max-reply takes")


def found(exc: BaseException | None) -> ReplyTooLargeError | None:
    """The :class:`ReplyTooLargeError` behind ``exc`` (litellm and the OpenAI SDK wrap it), if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ReplyTooLargeError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


class _Capped(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        count = 0
        async for chunk in self.inner:
            count += len(chunk)
            if count > self.limit:
                raise ReplyTooLargeError(None, self.limit)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """httpx's own transport, one per event loop (a pool's connections belong to the loop that opened them), each
    answer's body cut off at :data:`LIMIT`; answers asked uncompressed, a compressed one refused."""

    def __init__(self, make: Any = httpx.AsyncHTTPTransport) -> None:
        self._make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncBaseTransport] = (
            weakref.WeakKeyDictionary()
        )

    def _inner(self) -> httpx.AsyncBaseTransport:
        loop = asyncio.get_running_loop()
        inner = self._by_loop.get(loop)
        if inner is None:
            inner = self._by_loop[loop] = self._make()
        return inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"  # a compressed answer's bytes would not bound its size
        response = await self._inner().handle_async_request(request)
        limit = LIMIT.get()
        # the server's word, shown to the expert: only the letters a coding's name has, and few of them
        encoding = re.sub(r"[^a-z0-9, -]", "?", response.headers.get("content-encoding", "identity").strip().lower())[:40]
        if encoding != "identity":  # a few compressed KB may be gigabytes once decoded
            await response.aclose()
            raise ReplyTooLargeError(None, limit, encoding)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            await response.aclose()  # not a byte of it read
            raise ReplyTooLargeError(int(length), limit)
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        response.stream = _Capped(stream, limit)
        return response

    async def aclose(self) -> None:
        inner = self._by_loop.pop(asyncio.get_running_loop(), None)
        if inner is not None:
            await inner.aclose()


def install(litellm: Any) -> None:
    """litellm's OpenAI-compatible calls read through a capped client (unless the caller set a client of its own)."""
    if getattr(litellm, "aclient_session", None) is None:
        litellm.aclient_session = httpx.AsyncClient(transport=CappedTransport())
