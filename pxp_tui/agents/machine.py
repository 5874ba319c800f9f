"""The machine agent: an LLM (or the offline baseline) asked through litellm, tags by the AGENT procedure."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.computed import EarlyAgree, decide
from pxp_tui.agents.llm import Completion, LLMClient, overhead, totals
from pxp_tui.agents.types import TaskLike
from pxp_tui.engine import AgentError, ParseError, Reply, Turn
from pxp_tui.protocol import evince

#: how the machine names the agent in the human's seat (as tasks/base.py's HUMAN does)
HUMAN = "Human"


@dataclass(frozen=True)
class Debate:
    """What EVINCE's debate adds to an agent's prompts: a top-k distribution with each answer, and the
    debate's contentiousness, round by round (None: neither)."""

    top_k: int | None = None
    contentiousness: float | None = None
    decay: float = evince.DECAY

    def level(self, j: int) -> float | None:
        """The contentiousness of message ``j``'s round (round r holds messages 2r - 1 and 2r)."""
        if self.contentiousness is None:
            return None
        return evince.contentiousness((j + 1) // 2, self.contentiousness, self.decay)


#: the tone of each contentiousness level (after the paper's Table 2), from the highest
TONES = (
    (0.8, "Challenge the other expert's reasoning firmly and argue for the alternatives you find plausible."),
    (0.6, "Stay critical, but acknowledge points that are well supported."),
    (0.4, "Weigh both readings evenly."),
    (0.2, "Look for common ground while keeping your reservations."),
    (0.0, "Aim for a joint conclusion."),
)


def debate_instruction(level: float) -> str:
    """The sentence both agents' requests end with in an EVINCE debate."""
    tone = next(text for low, text in TONES if level >= low)
    return (
        f"Debate contentiousness: {level:.2f} on a scale from 0 (fully agreeable) to 1 (highly confrontational). "
        f"{tone} Refute the other expert's weakest points with counterarguments, then give your answer in the format above."
    )


class MachineAgent:
    """ASK_AGENT through a model; MATCH is the task's, AGREE the checker's.

    ``seat`` is ``machine`` (odd ``j``) or ``human`` (a second model in the human's seat, for EVINCE's debate): the
    exchange is rendered from that seat, the other agent named ``other``.
    """

    def __init__(
        self,
        task: TaskLike,
        client: LLMClient,
        checker: Checker,
        *,
        parse_attempts: int = 3,
        seat: str = "machine",
        other: str = HUMAN,
        debate: Debate | None = None,
        **params: Any,
    ) -> None:
        self.task = task
        self.client = client
        self.checker = checker
        self.parse_attempts = parse_attempts
        self.seat = seat
        self.other = other
        self.debate = debate or Debate()
        self.params = params
        self._rendered: dict[int, list[dict]] = {}

    def prompt(self, turn: Turn) -> list[dict[str, Any]]:
        """ASSEMBLE_PROMPT: the system prompt, the carried sessions, this session, the request; in the reference's
        layout (``task.history_first``), the carried sessions and this session's exchange, then the system prompt and
        the request."""
        system = self.task.system_prompt()
        asked = self.debate.top_k and self.task.distribution_instruction(self.debate.top_k)
        if asked:
            system += "\n" + asked
        first = self.task.history_first
        if len(turn.prior) and not first:
            system += "\n\nUse the following as context:"
        messages: list[dict[str, Any]] = [] if first else [{"role": "system", "content": system}]
        carried = set()
        for record in turn.prior:
            carried.add(record.session_id)
            rendered = self._rendered.get(record.session_id)
            if rendered is None:
                rendered = self._rendered[record.session_id] = self.task.context_messages(record, self.seat, self.other)
            messages.extend(rendered)
        if len(self._rendered) > 2 * len(carried) + 8:
            self._rendered = {k: v for k, v in self._rendered.items() if k in carried}
        messages.extend(
            self.task.session_messages(turn.instance, turn.history, in_context=False, seat=self.seat, other=self.other)
        )
        if first:
            messages += [
                {"role": "system", "content": system},
                {"role": "user", "content": self.task.instance_content(turn.instance)},
            ]
        ask = self.task.ask_content(turn, self.other)
        level = self.debate.level(turn.j)
        if level is not None:
            ask = (ask + "\n" if ask else "") + debate_instruction(level)
        return _append_text(messages, ask) if ask else messages

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
                reason = completion.unread or str(exc)
        excerpt = completion.text.strip().replace("\n", " ")[:120]
        said = f": {excerpt!r}" if excerpt or not completion.unread else ""  # an unread reply's cause says what it was
        raise AgentError(f"{self.client.model}: unparseable reply after {self.parse_attempts} attempts ({reason}){said}")

    async def respond(self, turn: Turn) -> Reply:
        agree = EarlyAgree(self.checker.agree, turn)  # the checker's first question asked beside the model's
        try:
            fresh, completion, failures = await self.ask(turn)
            decision = await decide(turn, fresh, self.task.match, agree)
        finally:
            agree.close()
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
        if self.debate.top_k:
            # the fresh answer's distribution, also when the tag table re-sends the earlier (y'', e''): the
            # agent's belief may move while its label does not
            read = self.task.read_distribution(completion.text, fresh[0], turn.instance, self.debate.top_k)
            if read is not None:
                # a reply without a readable distribution states none: nothing is made up in its place (EVINCE
                # leaves its round out), and the flag says it was asked for one
                if not read.missing:
                    meta["distribution"] = json.dumps(read.probabilities, ensure_ascii=False)
                meta["distribution_fallback"] = int(read.missing)
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
