"""What models wrap around their answers: thinking blocks and code fences, set aside before reading.

Reasoning models (DeepSeek-R1, QwQ, Qwen3, Magistral, ...) write their thinking first, between
``<think>`` and ``</think>``; some servers drop the opening tag and leave only ``</think>``. Thinking
is never part of the answer. Many models wrap an answer, or part of it, in a code fence (```` ``` ````
or ```` ```text ````); the fence marks are not part of it either.
"""

from __future__ import annotations

import re

_TAGS = r"think|thinking|reasoning"
_THINKING = re.compile(rf"<({_TAGS})>.*?</\1>", re.S | re.I)
_OPEN = re.compile(rf"<(?:{_TAGS})>", re.I)
_CLOSE = re.compile(rf"</(?:{_TAGS})>", re.I)
_FENCE = re.compile(r"^[ \t]*(?:```+|~~~+)[\w.+#-]*[ \t]*$")


def without_thinking(text: str) -> str:
    """``text`` without its thinking: closed blocks, a lone ``</think>``'s prefix, an unclosed tail."""
    text = _THINKING.sub("", text.replace("\r\n", "\n"))
    closes = list(_CLOSE.finditer(text))
    if closes:  # the server dropped the opening tag: everything before the last close is thinking
        text = text[closes[-1].end() :]
    opened = _OPEN.search(text)
    return text[: opened.start()] if opened else text


def cut_off_thinking(text: str) -> bool:
    """The reply stops inside a thinking block: the model ran out of tokens before it answered."""
    text = _THINKING.sub("", text)
    opened = _OPEN.search(text)
    return opened is not None and not _CLOSE.search(text, opened.end())


def is_fence(line: str) -> bool:
    """A line that only opens or closes a code fence (```` ``` ````, ```` ```smiles ````, ``~~~``)."""
    return bool(_FENCE.match(line))


def without_fences(text: str) -> str:
    """``text`` without its fence lines (for short answers, where nothing inside a fence matters)."""
    return "\n".join(line for line in text.split("\n") if not is_fence(line))


def trim_fences(lines: list[str]) -> list[str]:
    """``lines`` without blank lines at either end, nor the fence marks around them.

    A fence around all of them goes; so does an unmatched fence mark at either end (the half of a
    fence around a whole reply that fell into this part of it). A code block inside stays verbatim.
    """
    lines = list(lines)
    while True:
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        fences = sum(is_fence(line) for line in lines)
        if len(lines) >= 2 and is_fence(lines[0]) and is_fence(lines[-1]) and fences == 2:
            lines = lines[1:-1]
        elif fences % 2 and lines and is_fence(lines[0]):
            lines = lines[1:]
        elif fences % 2 and lines and is_fence(lines[-1]):
            lines = lines[:-1]
        else:
            return lines
