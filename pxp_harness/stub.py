"""A small OpenAI-compatible server on 127.0.0.1 for tests: scripted replies, injected failures.

It speaks enough of ``POST /v1/chat/completions`` for litellm's OpenAI path (``--model openai/stub
--api-base http://127.0.0.1:PORT/v1``) and records every request it was sent: headers and the JSON
body (system prompt, context, image data URLs). Failures are injected by request number (counted
from 1 over all requests): ``fail_every=3`` answers every third request with a 500,
``rate_limit_every=5`` every fifth with a 429 (a request that is both gets the 429), and
``script`` overrides single requests (status, text, delay in seconds, or an echo of the key); a
``reply`` function may also answer with an :class:`Injected` failure, chosen by what it was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHECKER_MARK = "You compare two"


@dataclass
class Request:
    number: int
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int = 200

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def system(self) -> str:
        first = self.messages[0] if self.messages else {}
        return first.get("content", "") if first.get("role") == "system" else ""

    @property
    def is_checker(self) -> bool:
        return self.system.startswith(CHECKER_MARK)

    def image_urls(self) -> list[str]:
        return [
            part["image_url"]["url"]
            for message in self.messages
            if isinstance(message.get("content"), list)
            for part in message["content"]
            if part.get("type") == "image_url"
        ]

    def last_user_text(self) -> str:
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return text_of(message.get("content"))
        return ""


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if p.get("type") == "text")


@dataclass
class Injected:
    """What the stub does with one request instead of answering it."""

    status: int = 200
    text: str | None = None  # reply text (status 200), e.g. an unparseable one
    delay: float = 0.0  # seconds before answering (a client with a shorter timeout gives up)
    echo_key: bool = False  # put the request's Authorization header in the error body
    body: dict[str, Any] | None = None  # the JSON answered as it is (status 200): a malformed reply
    trickle: float = 0.0  # seconds between one byte of the answer and the next (a reply that trickles in)


@dataclass
class StubServer:
    reply: Callable[[Request], str | Injected] = field(default=lambda request: "Yes")
    fail_every: int = 0
    rate_limit_every: int = 0
    script: dict[int, Injected] = field(default_factory=dict)
    usage: bool = True  # report token usage (as most servers do)

    def __post_init__(self) -> None:
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what was sent ----------------------------------------------------------------------------
    def answered(self) -> list[Request]:
        return [r for r in self.requests if r.status == 200]

    def machine_requests(self) -> list[Request]:
        return [r for r in self.answered() if not r.is_checker]

    def checker_requests(self) -> list[Request]:
        return [r for r in self.answered() if r.is_checker]

    # -- answering --------------------------------------------------------------------------------
    def _injected(self, number: int) -> Injected | None:
        if number in self.script:
            return self.script[number]
        if self.rate_limit_every and number % self.rate_limit_every == 0:
            return Injected(status=429)
        if self.fail_every and number % self.fail_every == 0:
            return Injected(status=500)
        return None

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any], Injected]:
        with self._lock:
            request = Request(len(self.requests) + 1, path, headers, body)
            self.requests.append(request)
        injected = self._injected(request.number)
        if injected is None:
            answer = self.reply(request)  # a reply function may inject a failure too
            injected = answer if isinstance(answer, Injected) else Injected(text=answer)
        if injected.body is not None:
            return 200, injected.body, injected
        if injected.status != 200:
            request.status = injected.status
            message = {429: "Rate limit reached, retry later", 500: "The server had an error"}.get(injected.status, "error")
            if injected.echo_key:
                message = f"Incorrect API key provided: {headers.get('authorization', '')}"
            return injected.status, {"error": {"message": message, "type": "stub_error", "code": injected.status}}, injected
        text = injected.text if injected.text is not None else self.reply(request)
        assert isinstance(text, str)
        payload: dict[str, Any] = {
            "id": f"stub-{request.number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        if self.usage:
            chars = sum(len(text_of(m.get("content"))) for m in request.messages)
            prompt = chars // 4 + 85 * len(request.image_urls())  # an image as a low-detail one
            completion = len(text) // 4 + 1
            payload["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return 200, payload, injected


def _handler(stub: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                body = {}
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, payload, injected = stub._answer(self.path, headers, body)
            if injected.delay:
                time.sleep(injected.delay)
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                if status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                step = 1 if injected.trickle else len(data)
                for start in range(0, len(data), step):
                    self.wfile.write(data[start : start + step])
                    self.wfile.flush()
                    time.sleep(injected.trickle)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                pass

    return Handler


_HUMAN = re.compile(
    r"^Human \((?P<tag>[A-Z]+)\)\.\n\w+: (?P<prediction>.*)\nExplanation: (?P<explanation>.*?)(?:\n\nConsidering|\Z)", re.S
)


def learner(label: str, first: Callable[[Request], tuple[str, str]]) -> Callable[[Request], str]:
    """A model that the checker finds always consistent ("Yes"), answers ``first(request)`` to a new
    case, and takes over the human's prediction and explanation once they have replied."""

    def reply(request: Request) -> str:
        if request.is_checker:
            return "Yes"
        found = _HUMAN.search(request.last_user_text())
        prediction, explanation = (found["prediction"], found["explanation"]) if found else first(request)
        return f"{label}: {prediction}\nExplanation: {explanation}"

    return reply


RAD_GUESSES = ("Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax")


def rad_first(request: Request) -> tuple[str, str]:
    """A diagnosis that depends on the image the request carries, and a report naming it."""
    label = RAD_GUESSES[zlib.crc32(request.image_urls()[-1].encode()) % len(RAD_GUESSES)]
    return label, f"Stub report: the film shows the signs of {label.lower()}."


def drug_first(request: Request) -> tuple[str, str]:
    return "CCO.CC(=O)Cl", "Stub: acylation of ethanol with acetyl chloride."
