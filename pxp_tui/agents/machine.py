"""The machine agent: an LLM (or the offline baseline) asked through litellm, tags by the AGENT procedure."""

from __future__ import annotations

from typing import Any

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.computed import decide
from pxp_tui.agents.llm import Completion, LLMClient, overhead, totals
from pxp_tui.agents.types import TaskLike
from pxp_tui.engine import AgentError, ParseError, Reply, Turn


class MachineAgent:
    """ASK_AGENT through a model; MATCH is the task's, AGREE the checker's."""

    def __init__(self, task: TaskLike, client: LLMClient, checker: Checker, *, parse_attempts: int = 3, **params: Any) -> None:
        self.task = task
        self.client = client
        self.checker = checker
        self.parse_attempts = parse_attempts
        self.params = params
        self._rendered: dict[int, list[dict]] = {}

    def prompt(self, turn: Turn) -> list[dict[str, Any]]:
        """ASSEMBLE_PROMPT: the system prompt, the carried sessions, this session, the request."""
        system = self.task.system_prompt()
        if len(turn.prior):
            system += "\n\nUse the following as context:"
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        carried = set()
        for record in turn.prior:
            carried.add(record.session_id)
            rendered = self._rendered.get(record.session_id)
            if rendered is None:
                rendered = self._rendered[record.session_id] = self.task.context_messages(record)
            messages.extend(rendered)
        if len(self._rendered) > 2 * len(carried) + 8:
            self._rendered = {k: v for k, v in self._rendered.items() if k in carried}
        messages.extend(self.task.session_messages(turn.instance, turn.history, in_context=False))
        return _append_text(messages, self.task.ask_content(turn))

    async def ask(self, turn: Turn) -> tuple[tuple[str, str], Completion, list[Completion]]:
        """ASK_AGENT: the model's fresh (prediction, explanation); unreadable replies are asked again."""
        messages = self.prompt(turn)
        failures: list[Completion] = []
        for attempt in range(self.parse_attempts):
            await self.client.backoff(attempt)
            completion = await self.client.complete(messages, **self.params)
            try:
                return self.task.parse(completion.text, turn.instance), completion, failures
            except ParseError as exc:
                failures.append(completion)
                reason = str(exc)
        excerpt = completion.text.strip().replace("\n", " ")[:120]
        raise AgentError(f"{self.client.model}: unparseable reply after {self.parse_attempts} attempts ({reason}): {excerpt!r}")

    async def respond(self, turn: Turn) -> Reply:
        fresh, completion, failures = await self.ask(turn)
        decision = await decide(turn, fresh, self.task.match, self.checker.agree)
        calls = [completion, *failures, *decision.checks]
        latency, cost = totals(calls)
        meta: dict[str, Any] = {
            **decision.guards,
            "model": completion.model,
            "latency_ms": round(latency, 3),  # the models' own time (stored)
            "overhead_ms": round(overhead(calls), 3),  # the app's, around the calls (shown live, not stored)
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "cost": cost,
            "raw": completion.text,
        }
        return Reply(decision.tag, decision.prediction, decision.explanation, meta)


def _append_text(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Add ``text`` to the last user message (or as a new one), without touching cached messages."""
    last = messages[-1]
    if last["role"] != "user":
        return [*messages, {"role": "user", "content": text}]
    content = last["content"]
    if isinstance(content, str):
        merged: Any = f"{content}\n\n{text}"
    else:
        merged = [*content, {"type": "text", "text": text}]
    return [*messages[:-1], {"role": "user", "content": merged}]
