"""CRIT: a judge scores each agent's arguments, and the scores weigh EVINCE's final distribution (issue 10).

EVINCE's step 3 (paper 003, Figure 1 and Appendix A) combines the two agents' last distributions as
``P_f = (W_A P_A + W_B P_B) / (W_A + W_B)``, the weights ``W`` the CRIT scores of each agent's arguments:
CRIT (the Critical Reading Inquisitive Template, Chang 2023c) finds the claim, its reasons, scores each
reason's validity and its source's credibility, does the same for the rival reasons, and weighs them into
one score (a 10-point rubric). Here ONE prompt shows the case and both agents' last prediction,
explanation and distribution, as "Expert A" (the machine's seat, which opens the session) and "Expert B"
(the other seat), neutral names for a judge; the judge model is the run's checker model.

The offline default is a real, deterministic judge registered as ``pxp-offline/crit`` that reads the same
prompt: a baseline that cannot weigh reasons. It scores what the prompt shows: how certain the
distribution is (the paper's Maxim 4.1: lower entropy, more reliable), whether the distribution ranks the
prediction first, and whether the explanation names it (:func:`offline_crit`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pxp_tui.agents import offline
from pxp_tui.agents.llm import LLMClient
from pxp_tui.common.models import model_label
from pxp_tui.engine import AgentError
from pxp_tui.protocol.evince import EQUAL
from pxp_tui.protocol.information import entropy

#: the judge's generation settings: deterministic, room for a short justification before the scores
JUDGE_SETTINGS = {"temperature": 0, "max_tokens": 600}
#: the two seats as the judge reads them (the machine's, the other's)
NAMES = ("Expert A", "Expert B")
#: the offline judge's name (``pxp-offline/crit``)
OFFLINE_NAME = "crit"
#: the scale of a CRIT score
LOW, HIGH = 1.0, 10.0

_SYSTEM = (
    "You judge a debate between two experts about one case, with CRIT (the Critical Reading Inquisitive "
    "Template). For each expert in turn: identify its claim (its prediction); find the reasons it gives for "
    "the claim; score each reason's validity (does it support the claim?) and the credibility of its "
    "sources; find the rival reasons against the claim (the other expert's counter-arguments, and any you "
    "see) and score them the same way; then weigh it all into one score from 1 (the claim is unsupported or "
    "refuted) to 10 (valid, credible reasons that survive the counter-arguments). Judge the arguments, not "
    "which answer you would give yourself. End your answer with exactly two lines:\n"
    "Expert A: <score 1-10>\nExpert B: <score 1-10>"
)
#: the judge's request opens with this (tests and the stub server tell it from the checker's by it)
JUDGE_MARK = _SYSTEM[:40]


@dataclass(frozen=True)
class Argument:
    """An agent's last stance: its prediction (the claim), its explanation (the reasons), its distribution."""

    prediction: str
    explanation: str
    distribution: Mapping[str, float]


@dataclass(frozen=True)
class Verdict:
    """What the judge made of a session: both scores (the weights), or why there are none (equal weights)."""

    machine: float | None
    human: float | None
    method: str  # "crit:<model>", or "equal (judge failed: ...)"
    reply: str = ""  # the judge's reply, verbatim (kept for review)

    @property
    def weights(self) -> tuple[float, float]:
        if self.machine is None or self.human is None:
            return 1.0, 1.0
        return self.machine, self.human


class CritError(ValueError):
    """The judge's reply gives no readable pair of scores."""


def _block(tag: str, argument: Argument, prediction_label: str) -> str:
    shown = {label: round(float(p), 3) for label, p in argument.distribution.items()}
    return (
        f"<{tag}>\n{prediction_label}: {argument.prediction}\nExplanation: {argument.explanation}\n"
        f"Distribution: {json.dumps(shown, ensure_ascii=False)}\n</{tag}>"
    )


def crit_prompt(case: str, machine: Argument, other: Argument, prediction_label: str = "Prediction") -> list[dict[str, str]]:
    """The judge's prompt: the case, then both experts' last prediction, explanation and distribution."""
    return [
        {"role": "system", "content": _SYSTEM},
        {
            "role": "user",
            "content": f"Case: {case}\n\n{_block('expert_a', machine, prediction_label)}\n\n"
            f"{_block('expert_b', other, prediction_label)}\n\n"
            "Score each expert's arguments by CRIT, then end with the two lines "
            "Expert A: <score> and Expert B: <score>.",
        },
    ]


_SCORE = r"(?P<score>\d+(?:\.\d+)?)"
_SCORE_OF_10 = r"(?P<of10>\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*10\b"
#: a score line: "Expert A: 7", "**B** = 7/10", "- Expert A score: 7"
_LINE = re.compile(
    rf"^[\s*_#>|\-]*(?:expert\s+)?(?P<who>[ab])\b[\s*_]*(?:score)?[\s*_]*[:=\-\u2013][\s*_]*{_SCORE}",
    re.I | re.M,
)
#: "Expert B: **6**" or "Expert A's arguments ... 7/10" within prose
_PROSE = re.compile(rf"\bexpert\s+(?P<who>[ab])\b(?:[\s*_]*[:=][\s*_]*{_SCORE}|[^\n\d]{{0,60}}?{_SCORE_OF_10})", re.I)


def parse_scores(text: str) -> tuple[float, float]:
    """(Expert A's score, Expert B's) from a judge's reply: the last score each is given (the reply ends
    with them), on a line of its own or in prose as ``7/10``; markdown marks are ignored.

    :class:`CritError` names what is missing or out of the 1-10 scale."""
    found: dict[str, tuple[int, float]] = {}
    for pattern in (_LINE, _PROSE):
        for m in pattern.finditer(text):
            who = m.group("who").lower()
            value = float(m["score"] or m["of10"]) if "of10" in pattern.groupindex else float(m["score"])
            if who not in found or m.start() >= found[who][0]:
                found[who] = (m.start(), value)
    missing = [name for name, key in zip(NAMES, "ab", strict=True) if key not in found]
    if missing:
        excerpt = " ".join(text.split())[:80]
        raise CritError(f"no score for {' or '.join(missing)} in {excerpt!r}")
    scores = found["a"][1], found["b"][1]
    for name, value in zip(NAMES, scores, strict=True):
        if not LOW <= value <= HIGH:
            raise CritError(f"{name}'s score {value:g} is outside {LOW:g}-{HIGH:g}")
    return scores


@dataclass
class Judge:
    """CRIT through a model (an LLM, or the offline baseline); a reply without scores is asked again, and
    a judge that fails gives equal weights with a method that says why."""

    client: LLMClient
    prediction_label: str = "Prediction"
    attempts: int = 2
    settings: dict = field(default_factory=dict)  # overrides of JUDGE_SETTINGS

    @property
    def method(self) -> str:
        return f"crit:{model_label(self.client.model)}"

    async def judge(self, case: str, machine: Argument, other: Argument) -> Verdict:
        prompt = crit_prompt(case, machine, other, self.prediction_label)
        reply, why = "", ""
        for attempt in range(self.attempts):
            try:
                await self.client.backoff(attempt)
                reply = (await self.client.complete(prompt, **{**JUDGE_SETTINGS, **self.settings})).text
                a, b = parse_scores(reply)
            except CritError as exc:
                why = str(exc)
                continue
            except AgentError as exc:  # the model could not be reached: no weights from it
                return Verdict(None, None, f"{EQUAL} (judge failed: {exc.cause})", reply)
            return Verdict(a, b, self.method, reply)
        return Verdict(None, None, f"{EQUAL} (judge failed: {why})", reply)


# -- the offline judge (a baseline) -----------------------------------------------------------------
_BLOCK = re.compile(r"<expert_(?P<who>[ab])>\n(?P<body>.*?)\n</expert_(?P=who)>", re.S)
#: the weight of each cue in the offline score
CERTAINTY, RANKED_FIRST, NAMED = 0.5, 0.25, 0.25


def _read_block(body: str) -> Argument:
    first, _, rest = body.partition("\n")
    explanation, _, distribution = rest.partition("\nDistribution: ")
    return Argument(
        first.partition(": ")[2].strip(),
        explanation.removeprefix("Explanation: ").strip(),
        {str(k): float(v) for k, v in json.loads(distribution or "{}").items()},
    )


def _same(a: str, b: str) -> bool:
    """Two predictions as the same words (case, spacing), or the same '.'-separated parts in any order."""

    def key(text: str) -> list[str]:
        return sorted(" ".join(part.lower().split()) for part in text.split("."))

    return key(a) == key(b)


def offline_cues(argument: Argument, labels: int) -> dict[str, float]:
    """What the offline judge scores, each in [0, 1]: ``certainty`` = 1 - H(P) / log2(labels) (Maxim 4.1),
    ``ranked_first`` (the distribution ranks the prediction first), ``named`` (the explanation names it, or
    every '.'-separated part of it)."""
    p = {k: v for k, v in argument.distribution.items() if v >= 0}
    total = sum(p.values())
    certainty = 1.0 if labels < 2 or total <= 0 else max(0.0, 1.0 - entropy(p) / math.log2(labels))
    top = max(p.values(), default=0.0)
    ranked = total > 0 and any(_same(label, argument.prediction) for label, v in p.items() if v >= top - 1e-9)
    parts = [part.strip().lower() for part in argument.prediction.split(".") if part.strip()]
    text = argument.explanation.lower()
    named = bool(parts) and (argument.prediction.strip().lower() in text or all(part in text for part in parts))
    return {"certainty": certainty, "ranked_first": float(ranked), "named": float(named)}


def offline_score(cues: Mapping[str, float]) -> float:
    """1 + 9 x (0.5 certainty + 0.25 ranked first + 0.25 named), to one decimal."""
    weighted = CERTAINTY * cues["certainty"] + RANKED_FIRST * cues["ranked_first"] + NAMED * cues["named"]
    return round(LOW + (HIGH - LOW) * weighted, 1)


def offline_crit(messages: list[dict]) -> str:
    """The offline judge's reply to :func:`crit_prompt`: its cues for each expert, then the two score lines."""
    text = messages[-1]["content"]
    blocks = {m.group("who"): _read_block(m.group("body")) for m in _BLOCK.finditer(text)}
    if set(blocks) != {"a", "b"}:
        return "The prompt shows no two experts to score."
    labels = len(set(blocks["a"].distribution) | set(blocks["b"].distribution))
    lines = ["Offline CRIT baseline: no model read the arguments; scored from the distributions and their wording."]
    scores = []
    for name, key in zip(NAMES, "ab", strict=True):
        cues = offline_cues(blocks[key], labels)
        scores.append(offline_score(cues))
        lines.append(
            f"{name}: certainty {cues['certainty']:.2f} (1 - H/log2 {labels}), prediction ranked first: "
            f"{'yes' if cues['ranked_first'] else 'no'}, named in its explanation: {'yes' if cues['named'] else 'no'}."
        )
    lines += ["", *(f"{name}: {score:g}" for name, score in zip(NAMES, scores, strict=True))]
    return "\n".join(lines)


offline.register(OFFLINE_NAME, offline_crit)
