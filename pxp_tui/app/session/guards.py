"""The expert's guards, worked out from the texts: MATCH(y', y''), AGREE(e', e'') and Changed (DESIGN.md section 1).

At message ``j`` the machine's message at ``j-1`` is ``(y', e')``; the expert's own at ``j-2`` is
``(y'', e'')`` -- at ``j = 2``, their fresh answer, that is the fields as they will be sent. MATCH is the
task's; AGREE is the agents' offline TF-IDF checker, a suggestion the expert may override (kept until a
text it depends on changes); Changed compares the fields with the expert's previous message. MATCH and
Changed are facts about the texts, so only AGREE is the expert's to override. The
values are recomputed from the texts at every change and once more at send, so the guards recorded
with a message are those of the texts it carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pxp_tui.protocol import Tag, decide_tag

NAMES = ("match", "agree", "changed")
#: the guards the expert may override (the others are facts about the texts)
OVERRIDABLE = ("agree",)


@dataclass(frozen=True)
class GuardTexts:
    """What the guards compare at message ``j``: the machine's message, the expert's previous one, the fields."""

    j: int
    machine_prediction: str
    machine_explanation: str
    own_prediction: str | None  # the expert's message at j - 2 (None at j = 2)
    own_explanation: str | None
    prediction: str  # the fields, as they would be sent (stripped)
    explanation: str

    @classmethod
    def of(cls, j: int, machine: Any, own: Any, prediction: str, explanation: str) -> GuardTexts:
        return cls(
            j,
            machine.prediction,
            machine.explanation,
            own.prediction if own is not None else None,
            own.explanation if own is not None else None,
            prediction.strip(),
            explanation.strip(),
        )

    @property
    def compared(self) -> tuple[str, str]:
        """``(y'', e'')``: the expert's previous message, or at ``j = 2`` their fresh answer."""
        if self.own_prediction is None or self.own_explanation is None:
            return self.prediction, self.explanation
        return self.own_prediction, self.own_explanation

    def inputs(self, name: str) -> tuple[str, ...]:
        """The texts guard ``name`` depends on (an override lasts while they stay the same)."""
        y2, e2 = self.compared
        if name == "match":
            return (self.machine_prediction, y2)
        if name == "agree":
            return (self.machine_explanation, e2)
        return (self.prediction, self.explanation)

    @property
    def first_reply(self) -> bool:
        return self.own_prediction is None


@lru_cache(maxsize=64)
def offline_agree(first: str, second: str) -> bool:
    """The agents' offline checker (TF-IDF cosine): about 2 ms for two 400-character texts, kept per pair."""
    from pxp_tui.agents import tfidf

    return tfidf.agree(first, second)


def computed(task: Any, texts: GuardTexts) -> dict[str, bool]:
    """MATCH by the task, AGREE by the offline checker, Changed by the texts (never at ``j = 2``)."""
    y2, e2 = texts.compared
    changed = False
    if not texts.first_reply:
        assert texts.own_prediction is not None and texts.own_explanation is not None
        changed = not task.match(texts.prediction, texts.own_prediction) or texts.explanation != texts.own_explanation.strip()
    return {
        "match": bool(task.match(texts.machine_prediction, y2)),
        "agree": offline_agree(texts.machine_explanation, e2),
        "changed": changed,
    }


@dataclass
class Guards:
    """The computed guards with the expert's AGREE override; an override is dropped when its texts change."""

    overrides: dict[str, tuple[bool, tuple[str, ...]]] = field(default_factory=dict)

    def clear(self) -> None:
        self.overrides.clear()

    def override(self, name: str, value: bool, texts: GuardTexts) -> None:
        self.overrides[name] = (value, texts.inputs(name))

    def overridden(self, name: str, texts: GuardTexts) -> bool:
        kept = self.overrides.get(name)
        return kept is not None and kept[1] == texts.inputs(name)

    def values(self, task: Any, texts: GuardTexts) -> dict[str, bool]:
        values = computed(task, texts)
        for name in OVERRIDABLE:
            if self.overridden(name, texts):
                values[name] = self.overrides[name][0]
            else:
                self.overrides.pop(name, None)
        return values


def as_columns(values: Mapping[str, bool]) -> dict[str, bool]:
    """The blackboard's guard columns (``guard_match``...)."""
    return {f"guard_{name}": bool(values[name]) for name in NAMES}


def doubts(tag: Tag, j: int, k: int, unchanged: bool, guards: Mapping[str, bool] | None) -> list[str]:
    """Why sending ``tag`` deserves a question (empty: send at once).

    REVISE with the answer ``unchanged`` from the expert's previous message is always asked about; a tag
    the recorded guards (``guards``, when the expert uses the helper) contradict is asked about too.
    """
    found = []
    if tag is Tag.REVISE and unchanged:
        found.append(f"REVISE, but your answer is unchanged from your message {j - 2}.")
    if guards is not None:
        table = decide_tag(j, k, guards["match"], guards["agree"], guards["changed"])
        if tag is Tag.RATIFY and not guards["match"]:
            found.append("RATIFY, but the guard helper says the predictions do not match.")
        elif tag is Tag.RATIFY and not guards["agree"]:
            found.append("RATIFY, but the guard helper says the explanations do not agree.")
        elif tag is not Tag.RATIFY and table is Tag.RATIFY:
            found.append(f"{tag.value}, but the guard helper says the predictions match and the explanations agree.")
        elif tag is Tag.REFUTE and guards["changed"]:
            found.append("REFUTE, but you changed your answer (REFUTE repeats it; REVISE sends a change).")
    return found
