"""The wording of the papers' prompts and of the reference scripts' (``--prompts paper|reference``).

pxp's own prompts (``--prompts pxp``) name the other agent and its tag ("Human (REFUTE).") and close every
request with an instruction. The papers' Example 1 words the human's reply as a judgement ("Both the
diagnosis and the explanation are incorrect. Please correct both. The correct explanation is that ...");
the reference scripts word each message by its tag ("I think you made a mistake. I refute your diagnosis.
I think: ...") and tell the machine that the other agent is always right. Each set here renders a message
of the exchange as that source does, and reads it back into pxp's form (:func:`to_pxp`), so that the offline
baseline, which reads pxp's form, answers every set through the same prompt path as an LLM.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, ParseError, Turn
from pxp_tui.protocol import Tag
from pxp_tui.tasks.base import HUMAN

if TYPE_CHECKING:
    from pxp_tui.tasks.base import Task

    _Base = Task
else:
    _Base = object

#: the reference's UPDATE_CONTEXT phrases, by tag, for a message the agent receives or sends after the first;
#: ``{noun}`` is "diagnosis" (RAD) or "opinion" (DRUG); RATIFY carries no answer in the reference
REFERENCE_PHRASES: Mapping[Tag, str] = {
    Tag.RATIFY: "Our {plural} match. I agree with you. This conversation is ratified.",
    Tag.REJECT: "I disagree with you and reject your {noun}. {rejected}",
    Tag.REVISE: "I think I made a mistake. I revise my {noun} to:",
    Tag.REFUTE: "I think you made a mistake. I refute your {noun}. I think:",
}


@dataclass(frozen=True)
class Reference:
    """The reference scripts' words for one task."""

    noun: str  # "diagnosis", "opinion"
    plural: str  # "diagnoses", "opinions"
    rejected: str  # "My diagnosis of this XRay is:", ...
    initial: str  # the machine's first message: "This is my initial diagnosis of the X-Ray:"

    def phrase(self, tag: Tag) -> str:
        return REFERENCE_PHRASES[tag].format(noun=self.noun, plural=self.plural, rejected=self.rejected)

    def message(self, message: Message, answer: str) -> str:
        """A message as the reference's context holds it: its tag's phrase, then the answer (none for RATIFY)."""
        if message.tag is Tag.INIT:
            return f"{self.initial}\n{answer}"
        if message.tag is Tag.RATIFY:
            return self.phrase(Tag.RATIFY)
        return f"{self.phrase(message.tag)}\n{answer}"

    def tag_of(self, text: str) -> Tag | None:
        """The tag a message in this wording was sent with (None: the machine's first, or not this wording)."""
        for tag in REFERENCE_PHRASES:
            if text.lstrip().startswith(self.phrase(tag)[:30]):
                return tag
        return None


def paper_judgement(message: Message, noun: str) -> str:
    """The papers' Example 1 wording of the human's reply: what was right or wrong, from its guards (MATCH and
    AGREE of the message it answers), else from its tag."""
    match, agree = message.meta.get("guard_match"), message.meta.get("guard_agree")
    if match is None or agree is None:
        match = agree = message.tag is Tag.RATIFY
        if message.tag in (Tag.REFUTE, Tag.REVISE):
            match, agree = True, False
    if match and agree:
        return f"Both the {noun} and the explanation are correct."
    if not match and not agree:
        return f"Both the {noun} and the explanation are incorrect. Please correct both."
    wrong = noun if not match else "explanation"
    return f"The {wrong} is incorrect. Please correct it."


_PAPER_RIGHT = re.compile(r"^Both the \w+ and the explanation are correct\.")
_PAPER_WRONG = re.compile(r"^(?:Both the \w+ and the explanation are incorrect|The \w+ is incorrect)\.")


def paper_tag(text: str) -> Tag | None:
    """The tag pxp's reader gives a reply in the papers' wording: RATIFY for "correct", REFUTE otherwise."""
    stripped = text.lstrip()
    if _PAPER_RIGHT.match(stripped):
        return Tag.RATIFY
    if _PAPER_WRONG.match(stripped):
        return Tag.REFUTE
    return None


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if p.get("type") == "text")


def with_text(content: Any, text: str) -> Any:
    """``content`` with its text replaced by ``text`` (images kept)."""
    if isinstance(content, str):
        return text
    return [{"type": "text", "text": text}, *(p for p in content or () if p.get("type") != "text")]


def without_first_line(text: str) -> str:
    return text.split("\n", 1)[1] if "\n" in text else ""


Rewrite = Callable[[dict[str, Any], int], "dict[str, Any] | None"]


def to_pxp(messages: list[dict[str, Any]], rewrite: Rewrite) -> list[dict[str, Any]]:
    """The prompt with each non-system message rewritten into pxp's wording (``rewrite`` gets the message and its
    position; None drops it): what the offline baseline reads."""
    out = []
    for index, message in enumerate(messages):
        if message["role"] == "system":
            out.append(message)
            continue
        found = rewrite(message, index)
        if found is not None:
            out.append(found)
    return out


class Worded(_Base):
    """What a task worded as the papers or the reference shares: its answers in the set's format, the human's
    reply as the set words it (the reference: by tag; the papers: a judgement), no closing instruction."""

    prompts: str
    #: the reference's words for this task, and the papers' noun for its prediction ("diagnosis", "pathway")
    words: ClassVar[Reference]
    judged: ClassVar[str]

    def labels(self) -> tuple[str, str]:
        """The names of the answer's two parts in this set's format."""
        return "Prediction", "Explanation"

    def _answer(self, message: Message) -> str:
        prediction, explanation = self.labels()
        if self.prompts == "reference":
            return f"*{prediction}: {message.prediction}*\n*{explanation}: {message.explanation}*"
        return f"{prediction}: {message.prediction}\n{explanation}: {message.explanation}"

    def reply_content(self, message: Message, other: str = HUMAN) -> str:
        if self.prompts == "reference":
            return self.words.message(message, self._answer(message))
        if self.prompts == "paper":
            return f"{paper_judgement(message, self.judged)}\n{self._answer(message)}"
        return super().reply_content(message, other)

    def ask_content(self, turn: Turn, other: str = HUMAN) -> str:
        return super().ask_content(turn, other) if self.prompts == "pxp" else ""

    @property
    def history_first(self) -> bool:
        """The reference's layout (``assemble_prompt`` appends the system prompt and the request to the context C,
        which holds the replies' texts only)."""
        return self.prompts == "reference"

    def session_messages(
        self, instance: Instance, messages: Sequence[Message], *, in_context: bool, seat: str = "machine", other: str = HUMAN
    ) -> list[dict[str, Any]]:
        chat = super().session_messages(instance, messages, in_context=in_context, seat=seat, other=other)
        return chat[1:] if self.history_first else chat  # the reference's C: the exchange, without its question

    def in_pxp_order(
        self, messages: list[dict[str, Any]], opening: Callable[[list[dict[str, Any]]], str]
    ) -> list[dict[str, Any]]:
        """A prompt in the reference's layout as the offline baseline reads it, in pxp's order: the system prompt, the
        request, then this session's exchange. The exchange is the history's last session (from the machine's last
        opening, ``words.initial``) when it awaits the machine's answer (it ends with the other agent's message, not a
        REJECT) and its opening is the one the baseline gives to this request (``opening``: its answer to the system
        prompt and the request alone); otherwise it is an earlier session's. Earlier sessions are left out: the
        reference's context names neither their molecule nor their X-ray, so nothing ties them to one."""
        at = next((i for i, m in enumerate(messages) if m["role"] == "system"), None)
        if not self.history_first or at is None:
            return messages
        history, request = messages[:at], messages[at:]
        starts = [
            i
            for i, m in enumerate(history)
            if m["role"] == "assistant" and text_of(m.get("content")).lstrip().startswith(self.words.initial)
        ]
        if not starts:
            return request
        exchange = history[starts[-1] :]
        last = exchange[-1]
        awaits = last["role"] == "user" and self.words.tag_of(text_of(last.get("content"))) is not Tag.REJECT
        ours = without_first_line(text_of(exchange[0].get("content")))
        return [*request, *exchange] if awaits and self._same_answer(ours, opening(request)) else request

    def _same_answer(self, first: str, second: str) -> bool:
        try:
            return self.parse(first) == self.parse(second)
        except ParseError:
            return False
