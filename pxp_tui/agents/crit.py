"""CRIT each round: a judge scores both agents' reasons, for Figure 1's loop and the final weights.

EVINCE (paper 003, Figure 1) evaluates ``CRIT(S, R_A, R_B)`` every round: its loop goes on only while CRIT
does not fall, and the last round's scores ``Omega_A``, ``Omega_B`` weigh the final distribution. CRIT
(Appendix A, Table 4) reads a document whose claim is an agent's prediction, finds its reasons ``R`` and
scores each for validity ``gamma`` and source credibility ``theta``, finds the rival reasons ``R'`` (the
other agent's counter-arguments) and scores them the same way, and combines them into one score ``Gamma``.

Here one prompt per round shows the judge the case ``S`` and both agents' prediction, explanation and
distribution, as "Expert A" (the machine's seat, which opens the round) and "Expert B" (the other seat);
the judge answers in JSON with, for each expert, its claim, its reasons and the rival reasons, each with
its validity and credibility on CRIT's 1-10 scale, and its own overall score. The score used is computed
from the items by :func:`pxp_tui.protocol.crit.score` (Table 4's step 6: the paper gives no weights, so
ours are stated there); the judge's own overall score is kept beside it. The judge is the run's checker
model, at temperature 0.

The offline default, ``pxp-offline/crit``, is **not CRIT**: a deterministic heuristic stand-in that reads
the same prompt and answers in the same format without reading any reasoning (:func:`offline_crit`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.agents import offline
from pxp_tui.agents.llm import LLMClient
from pxp_tui.common.models import is_offline, model_label
from pxp_tui.engine import AgentError
from pxp_tui.protocol import crit as arithmetic
from pxp_tui.protocol.information import entropy

#: the judge's generation settings: deterministic, room for the items of both experts
JUDGE_SETTINGS = {"temperature": 0, "max_tokens": 1500}
#: the two seats as the judge reads them (the machine's, the other's)
NAMES = ("Expert A", "Expert B")
KEYS = ("expert_a", "expert_b")
#: the offline judge's name (``pxp-offline/crit``), and its method as stored: not CRIT, a stand-in
OFFLINE_NAME = "crit"
OFFLINE_METHOD = "offline heuristic (not CRIT)"
#: the longest judge's reply read (the rest is ignored), and the most reasons read per list
MAX_REPLY, MAX_REASONS = 20_000, 12

_SYSTEM = (
    "You judge one round of a debate between two experts about one case, with CRIT (the Critical Reading "
    "Inquisitive Template). For each expert in turn: 1. identify its claim (its prediction); 2. find the "
    "reasons it gives for the claim; 3. score each reason's validity (does it support the claim? 1-10) and "
    "the credibility of its source (is it grounded in the case, or in established knowledge? 1-10); 4. find "
    "the rival reasons against the claim (the other expert's counter-arguments, and any you see); 5. score "
    "each rival reason's validity and credibility the same way; 6. weigh it all into one score from 1 (the "
    "claim is unsupported or refuted) to 10 (valid, credible reasons that survive the rival reasons). Judge "
    "the arguments, not which answer you would give yourself. Answer with JSON only, in this form:\n"
    '{"expert_a": {"claim": "...", "reasons": [{"reason": "...", "validity": 8, "credibility": 7}], '
    '"rival_reasons": [{"reason": "...", "validity": 4, "credibility": 6}], "score": 7}, '
    '"expert_b": {"claim": "...", "reasons": [...], "rival_reasons": [...], "score": 5}}'
)
#: the judge's request opens with this (tests and the stub server tell it from the checker's by it)
JUDGE_MARK = _SYSTEM[:40]


@dataclass(frozen=True)
class Argument:
    """An agent's stance in a round: its prediction (the claim), its explanation (the reasons), its distribution."""

    prediction: str
    explanation: str
    distribution: Mapping[str, float]


@dataclass(frozen=True)
class Reason:
    """A reason (or a rival reason) as the judge scored it, on CRIT's 1-10 scales."""

    text: str
    validity: float
    credibility: float

    def as_dict(self) -> dict[str, Any]:
        return {"reason": self.text, "validity": self.validity, "credibility": self.credibility}


@dataclass(frozen=True)
class Assessment:
    """CRIT of one expert: its claim, scored reasons and rival reasons, the judge's own score, and ours."""

    claim: str
    reasons: tuple[Reason, ...]
    rivals: tuple[Reason, ...]
    stated: float | None  # the judge's overall score (step 7), kept for comparison

    @property
    def score(self) -> float:
        """Gamma from the scored items (:func:`pxp_tui.protocol.crit.score`)."""
        return arithmetic.score(
            [(r.validity, r.credibility) for r in self.reasons], [(r.validity, r.credibility) for r in self.rivals]
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "reasons": [r.as_dict() for r in self.reasons],
            "rival_reasons": [r.as_dict() for r in self.rivals],
            "stated": self.stated,
            "score": round(self.score, 6),
        }


@dataclass(frozen=True)
class Verdict:
    """What the judge made of a round: both experts' assessments, or why there are none."""

    machine: Assessment | None
    human: Assessment | None
    method: str  # "crit:<model>", "offline heuristic (not CRIT)", or "none (judge failed: ...)"
    reply: str = ""  # the judge's reply, verbatim (kept for review)

    @property
    def scores(self) -> tuple[float, float] | None:
        if self.machine is None or self.human is None:
            return None
        return self.machine.score, self.human.score

    def stored(self) -> dict[str, Any]:
        """The verdict as ``messages.crit`` stores it (JSON): ``machine``, ``human`` and ``score`` (the round's
        CRIT, their mean) are NULL when the judge failed."""
        scores = self.scores
        found: dict[str, Any] = {
            "method": self.method,
            "machine": None if scores is None else round(scores[0], 6),
            "human": None if scores is None else round(scores[1], 6),
            "score": None if scores is None else round(arithmetic.round_score(*scores) or 0.0, 6),
        }
        if self.machine is not None and self.human is not None:
            found["items"] = {"machine": self.machine.as_dict(), "human": self.human.as_dict()}
        found["reply"] = self.reply
        return found


class CritError(ValueError):
    """The judge's reply gives no readable assessment of both experts."""


def _block(tag: str, argument: Argument, prediction_label: str) -> str:
    shown = {label: round(float(p), 3) for label, p in argument.distribution.items()}
    return (
        f"<{tag}>\n{prediction_label}: {argument.prediction}\nExplanation: {argument.explanation}\n"
        f"Distribution: {json.dumps(shown, ensure_ascii=False)}\n</{tag}>"
    )


def crit_prompt(case: str, machine: Argument, other: Argument, prediction_label: str = "Prediction") -> list[dict[str, str]]:
    """The judge's prompt: the case, then both experts' prediction, explanation and distribution of the round."""
    return [
        {"role": "system", "content": _SYSTEM},
        {
            "role": "user",
            "content": f"Case: {case}\n\n{_block('expert_a', machine, prediction_label)}\n\n"
            f"{_block('expert_b', other, prediction_label)}\n\n"
            "Assess each expert by CRIT and answer with the JSON only.",
        },
    ]


def _json_object(text: str) -> Any:
    """The JSON object in a reply: the whole text, a fenced block, or from its first '{' to its last '}'."""
    candidates = [text]
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S | re.I)
    if fenced:
        candidates.append(fenced.group(1))
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise CritError(f"no JSON object in {' '.join(text.split())[:80]!r}")


def _number(value: Any, what: str) -> float:
    if isinstance(value, str):
        value = value.strip().split("/")[0]
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CritError(f"{what} is not a number: {str(value)[:20]!r}") from None
    if not (math.isfinite(number) and arithmetic.LOW <= number <= arithmetic.HIGH):
        raise CritError(f"{what} {number:g} is outside {arithmetic.LOW:g}-{arithmetic.HIGH:g}")
    return number


def _reasons(items: Any, name: str, what: str) -> tuple[Reason, ...]:
    if items is None:
        return ()
    if not isinstance(items, list):
        raise CritError(f"{name}'s {what} are not a list")
    found = []
    for index, item in enumerate(items[:MAX_REASONS], start=1):
        if not isinstance(item, Mapping):
            raise CritError(f"{name}'s {what} {index} is not an object")
        label = f"{name}'s {what} {index}: validity"
        validity = _number(item.get("validity"), label)
        credibility = _number(item.get("credibility"), f"{name}'s {what} {index}: credibility")
        found.append(Reason(str(item.get("reason") or "")[:500], validity, credibility))
    return tuple(found)


def _entry(found: Mapping[str, Any], key: str, name: str) -> Mapping[str, Any]:
    wanted = {key, name.lower(), name.lower().replace(" ", "_"), key.replace("_", " ")}
    for k, value in found.items():
        if str(k).strip().lower() in wanted and isinstance(value, Mapping):
            return value
    raise CritError(f"no assessment of {name}")


def parse_verdict(text: str) -> tuple[Assessment, Assessment]:
    """(Expert A's assessment, Expert B's) from a judge's JSON reply (fenced, or with prose around it);
    :class:`CritError` says what is missing or off CRIT's 1-10 scale."""
    found = _json_object(text[:MAX_REPLY])
    if not isinstance(found, Mapping):
        raise CritError("the reply's JSON is not an object")
    assessments = []
    for key, name in zip(KEYS, NAMES, strict=True):
        entry = _entry(found, key, name)
        reasons = _reasons(entry.get("reasons"), name, "reason")
        if not reasons:
            raise CritError(f"no scored reason of {name}")
        rivals = _reasons(entry.get("rival_reasons", entry.get("rivals")), name, "rival reason")
        stated = entry.get("score")
        assessments.append(
            Assessment(
                str(entry.get("claim") or "")[:200],
                reasons,
                rivals,
                None if stated is None else _number(stated, f"{name}'s score"),
            )
        )
    return assessments[0], assessments[1]


@dataclass
class Judge:
    """CRIT through a model (an LLM, or the offline stand-in); a reply without both assessments is asked
    again, and a judge that fails gives no scores, with a method that says why."""

    client: LLMClient
    prediction_label: str = "Prediction"
    attempts: int = 2
    settings: dict = field(default_factory=dict)  # overrides of JUDGE_SETTINGS

    @property
    def method(self) -> str:
        return OFFLINE_METHOD if is_offline(self.client.model) else f"crit:{model_label(self.client.model)}"

    async def judge(self, case: str, machine: Argument, other: Argument) -> Verdict:
        prompt = crit_prompt(case, machine, other, self.prediction_label)
        reply, why = "", ""
        for attempt in range(self.attempts):
            try:
                await self.client.backoff(attempt)
                reply = (await self.client.complete(prompt, **{**JUDGE_SETTINGS, **self.settings})).text
                a, b = parse_verdict(reply)
            except CritError as exc:
                why = str(exc)
                continue
            except AgentError as exc:  # the model could not be reached: no scores from it
                return Verdict(None, None, f"none (judge failed: {exc.cause})", reply)
            return Verdict(a, b, self.method, reply)
        return Verdict(None, None, f"none (judge failed: {why})", reply)


# -- the offline stand-in (a heuristic, not CRIT) ---------------------------------------------------
_BLOCK = re.compile(r"<expert_(?P<who>[ab])>\n(?P<body>.*?)\n</expert_(?P=who)>", re.S)
_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
#: words that carry nothing about a case
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "are",
        "was",
        "were",
        "has",
        "have",
        "not",
        "but",
        "its",
        "his",
        "her",
        "their",
        "they",
        "them",
        "than",
        "then",
        "which",
        "what",
        "when",
        "where",
        "who",
        "why",
        "how",
        "also",
        "most",
        "more",
        "less",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "these",
        "those",
        "there",
        "very",
        "much",
        "many",
        "some",
        "any",
        "each",
        "both",
        "other",
        "another",
        "same",
        "such",
        "only",
        "just",
        "can",
        "could",
        "would",
        "should",
        "may",
        "might",
        "shows",
        "show",
        "seen",
        "case",
        "expert",
        "prediction",
        "explanation",
    ]
)


def _read_block(body: str) -> Argument:
    first, _, rest = body.partition("\n")
    explanation, _, distribution = rest.partition("\nDistribution: ")
    try:
        shown = json.loads(distribution or "{}")
    except ValueError:
        shown = {}
    return Argument(
        first.partition(": ")[2].strip(),
        explanation.removeprefix("Explanation: ").strip(),
        {str(k): float(v) for k, v in shown.items() if isinstance(v, (int, float))},
    )


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(_words(s)) >= 2][:MAX_REASONS]


def _certainty(argument: Argument, labels: int) -> float:
    p = {k: v for k, v in argument.distribution.items() if v >= 0}
    if labels < 2 or sum(p.values()) <= 0:
        return 1.0
    return max(0.0, 1.0 - entropy(p) / math.log2(labels))


def _scored(sentence: str, case: set[str], credibility: float) -> dict[str, Any]:
    """A sentence as a reason: validity from the share of its words found in the case (grounded in S), 1-10."""
    words = _words(sentence)
    grounded = len(words & case) / len(words) if words else 0.0
    return {"reason": sentence[:200], "validity": round(1 + 9 * grounded, 1), "credibility": credibility}


def offline_crit(messages: list[dict]) -> str:
    """The offline stand-in's reply to :func:`crit_prompt`: the JSON of a CRIT judge, from cues only.

    Reasons are an expert's sentences; each reason's validity is ``1 + 9 x`` the share of its words found
    in the case text (grounded in ``S``), its credibility ``1 + 9 x`` the expert's certainty ``1 - H(P) /
    log2(C)`` (Maxim 4.1); the rival reasons are the other expert's sentences, scored the same way with
    that expert's certainty. It reads no reasoning: a heuristic, not CRIT."""
    text = messages[-1]["content"]
    blocks = {m.group("who"): _read_block(m.group("body")) for m in _BLOCK.finditer(text)}
    if set(blocks) != {"a", "b"}:
        return "The prompt shows no two experts to assess."
    case = _words(text.partition("\n\n<expert_a>")[0])
    labels = len(set(blocks["a"].distribution) | set(blocks["b"].distribution))
    credibility = {who: round(1 + 9 * _certainty(arg, labels), 1) for who, arg in blocks.items()}
    reasons = {who: [_scored(s, case, credibility[who]) for s in _sentences(arg.explanation)] for who, arg in blocks.items()}
    verdict: dict[str, Any] = {
        "note": f"{OFFLINE_METHOD}: no model read the arguments; scored from the wording and the distributions"
    }
    for who, other in (("a", "b"), ("b", "a")):
        own = reasons[who] or [{"reason": "(no reason given)", "validity": 1.0, "credibility": 1.0}]
        entry: dict[str, Any] = {"claim": blocks[who].prediction, "reasons": own, "rival_reasons": reasons[other]}
        entry["score"] = round(
            max(
                arithmetic.LOW,
                arithmetic.score(
                    [(r["validity"], r["credibility"]) for r in own],
                    [(r["validity"], r["credibility"]) for r in reasons[other]],
                ),
            ),
            1,
        )
        verdict[f"expert_{who}"] = entry
    return json.dumps(verdict, ensure_ascii=False, indent=1)


offline.register(OFFLINE_NAME, offline_crit)
