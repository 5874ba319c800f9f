"""AGREE: are two explanations consistent? Asked of a checker model (an LLM, or the offline checker)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pxp_tui.agents import offline, tfidf
from pxp_tui.agents.llm import Completion, LLMClient
from pxp_tui.agents.verdict import parse_answer, unclear
from pxp_tui.engine import AgentError

CHECKER_SETTINGS = {"temperature": 0, "max_tokens": 10}

_FIRST = re.compile(r"<first>\n?(.*?)\n?</first>", re.S)
_SECOND = re.compile(r"<second>\n?(.*?)\n?</second>", re.S)


def agree_prompt(first: str, second: str, noun: str = "explanations") -> list[dict[str, str]]:
    """The checker's prompt, after the papers' "Are these two reports consistent with each other?"."""
    return [
        {
            "role": "system",
            "content": f"You compare two {noun} of the same case. Answer with one word: Yes or No.",
        },
        {
            "role": "user",
            "content": f"Are these two {noun} consistent with each other?\n\n"
            f"<first>\n{first}\n</first>\n\n<second>\n{second}\n</second>\n\nAnswer Yes or No.",
        },
    ]


def offline_checker(messages: list[dict]) -> str:
    """The offline checker's reply: Yes when the TF-IDF cosine reaches the threshold."""
    text = messages[-1]["content"]
    first, second = _FIRST.search(text), _SECOND.search(text)
    if not first or not second:
        return "No"
    return "Yes" if tfidf.agree(first.group(1), second.group(1)) else "No"


offline.register("checker", offline_checker)


@dataclass
class Checker:
    """AGREE through a model; identical texts agree without a call."""

    client: LLMClient
    noun: str = "explanations"
    attempts: int = 3
    settings: dict = field(default_factory=dict)  # overrides of CHECKER_SETTINGS

    async def agree(self, first: str, second: str) -> tuple[bool, Completion | None]:
        if first.strip() == second.strip():
            return True, None
        prompt = agree_prompt(first, second, self.noun)
        for attempt in range(self.attempts):
            await self.client.backoff(attempt)
            reply = await self.client.complete(prompt, **{**CHECKER_SETTINGS, **self.settings})
            verdict = parse_answer(reply.text)
            if verdict is not None:
                return verdict, reply
        excerpt = reply.text.strip().replace("\n", " ")[:80]
        raise AgentError(
            f"checker {self.client.model}: answered neither Yes nor No after {self.attempts} attempts"
            f"{unclear(reply.text)}: {f'({reply.unread})' if reply.unread else repr(excerpt)}"
        )
