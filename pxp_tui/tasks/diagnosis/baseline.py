"""The offline diagnosis baselines: word overlap with the labelled cases in the prompt, and two readers that debate.

Each reads only its prompt, as an LLM would: the current case's description and candidates, the earlier
cases carried in the context, and the other agent's replies, whose diagnosis labels each earlier case.
**It knows no medicine.** Its view of a case is a softmax, at its own temperature, over the candidates of

- its evidence: for each candidate, the word overlap (Jaccard, on words of four letters or more) between
  this description and the nearest earlier case labelled with it, and the overlap with the candidate's
  own name;
- its prior: a fixed, seeded score per (case, candidate), its idiosyncrasy: two readers with different
  seeds start apart on the same case (the paper pairs a high- and a low-temperature agent; a reader
  whose view is sharp holds to it).

Without a debate it answers its most probable candidate, and takes the other's diagnosis and explanation
over, word for word, after a reply that does not ratify (so the proxy's sessions end); asked for a
distribution, it states its own view where that ranks its diagnosis first, else certainty on the diagnosis
it took over. In a debate (the
prompt sets a contentiousness ``c``; or, asked for a distribution, the other's latest reply states one: then
``c = 0``) its distribution is ``w * own + (1 - w) * other's latest`` with ``w = max(c, sharpness)``,
sharpness = its own top probability, and it names that distribution's most probable candidate: at a high
contentiousness, or sure of itself, it holds; as the contentiousness falls, an unsure reader moves towards
the other. So a pair that starts apart converges, or stalls where both are sure and disagree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.base import HUMAN_REPLY, before_ask
from pxp_tui.tasks.debating import contentiousness_in as debate_level
from pxp_tui.tasks.debating import debated, idiosyncrasy
from pxp_tui.tasks.diagnosis.dataset import canonical
from pxp_tui.tasks.distribution import HEADING
from pxp_tui.tasks.parsing import sections

_CASE = re.compile(r"^Case (?P<key>[^:\n]*): (?P<text>.*?)\nCandidate diagnoses: (?P<labels>[^\n]*)", re.S)
_ALIASES = {"prediction": ["diagnosis"], "explanation": ["explanation"], "distribution": ["distribution"]}
_ASKED = re.compile(r"^" + HEADING + r": ", re.M)
_ASKED_K = re.compile(r"the (?P<k>\d+) most likely candidate")
_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset(
    [
        "with",
        "that",
        "this",
        "from",
        "have",
        "been",
        "they",
        "their",
        "them",
        "than",
        "then",
        "when",
        "what",
        "which",
        "where",
        "while",
        "days",
    ]
)


@dataclass(frozen=True)
class Reader:
    """How an offline reader weighs a case: its softmax temperature, the weight of its seeded prior, its seed."""

    temperature: float
    prior: float
    seed: int


#: the machine's reader (low temperature) and the second one (``--human model:offline``: high temperature)
FIRST, SECOND = Reader(temperature=0.12, prior=0.5, seed=1), Reader(temperature=0.3, prior=0.5, seed=2)


@dataclass
class Case:
    """One session as seen in the prompt: the case, and the answers exchanged about it."""

    key: str
    text: str
    labels: tuple[str, ...]
    mine: list[tuple[str, str]] = field(default_factory=list)  # (diagnosis, explanation)
    theirs: list[tuple[str, str, str, str]] = field(default_factory=list)  # (tag, diagnosis, explanation, whole text)

    @property
    def label(self) -> str | None:
        """The other agent's latest diagnosis of this case."""
        return next((d for _, d, _, _ in reversed(self.theirs) if d), None)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if p.get("type") == "text")


def read_prompt(messages: list[dict[str, Any]]) -> list[Case]:
    cases: list[Case] = []
    for message in messages:
        text = before_ask(_text(message))
        found = _CASE.match(text.strip()) if message["role"] == "user" else None
        if found:
            labels = tuple(x.strip() for x in found.group("labels").strip().split(", ") if x.strip())
            cases.append(Case(found.group("key"), found.group("text"), labels))
        elif cases and message["role"] == "assistant":
            said = sections(text, _ALIASES)
            cases[-1].mine.append((said.get("prediction", ""), said.get("explanation", "")))
        elif cases and message["role"] == "user":
            reply = HUMAN_REPLY.match(text)
            said = sections(text, _ALIASES)
            cases[-1].theirs.append(
                (reply.group("tag") if reply else "", said.get("prediction", ""), said.get("explanation", ""), text)
            )
    return cases


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def evidence(current: Case, earlier: list[Case]) -> dict[str, tuple[float, str]]:
    """Per candidate: the best overlap with an earlier case labelled with it (or with its own name), and why."""
    here = words(current.text)
    found: dict[str, tuple[float, str]] = {}
    for label in current.labels:
        named = _jaccard(here, words(label))
        found[label] = (named, f"its name shares {', '.join(sorted(here & words(label)))}" if named else "")
    for case in earlier:
        match = next((x for x in current.labels if canonical(x) == canonical(case.label or "")), None)
        if match is None:
            continue
        overlap = _jaccard(here, words(case.text))
        if overlap > found[match][0]:
            shared = ", ".join(sorted(here & words(case.text))[:4])
            found[match] = (overlap, f"case {case.key}, labelled {match}, shares {shared}")
    return found


def own_view(current: Case, earlier: list[Case], reader: Reader) -> dict[str, float]:
    """The reader's softmax over the candidates (see the module's notes)."""
    scores = {
        x: e + reader.prior * idiosyncrasy(reader.seed, current.key, canonical(x))
        for x, (e, _) in evidence(current, earlier).items()
    }
    top = max(scores.values())
    return normalise({x: math.exp((v - top) / reader.temperature) for x, v in scores.items()}, current.labels)


def _debated(current: Case, earlier: list[Case], reader: Reader, level: float) -> dict[str, float]:
    return debated(own_view(current, earlier, reader), _other_distribution(current), level, current.labels)


def _stated_by_other(current: Case) -> dict[str, float] | None:
    """The other agent's latest distribution in this case, as its message states it (None: it states none)."""
    from pxp_tui.tasks.diagnosis.task import kept_name, label_in
    from pxp_tui.tasks.distribution import read_labelled

    if not current.theirs:
        return None
    read = read_labelled(current.theirs[-1][3], current.labels, lambda w: label_in(w, current.labels), None, kept_name)
    return None if read.missing else read.probabilities


def _other_distribution(current: Case) -> dict[str, float] | None:
    """The other agent's latest distribution as its message states it; when it states none (the proxy, an
    expert), certainty on its diagnosis, as this reader takes such an answer."""
    from pxp_tui.tasks.diagnosis.task import kept_name, label_in

    stated = _stated_by_other(current)
    if stated is not None or not current.theirs or not current.theirs[-1][1]:
        return stated
    diagnosis = current.theirs[-1][1]
    named = label_in(diagnosis, current.labels) or kept_name(diagnosis) or current.labels[0]
    order = current.labels if named in current.labels else (*current.labels, named)
    return normalise({named: 1.0}, order)


def _holding(current: Case, earlier: list[Case], reader: Reader, diagnosis: str) -> dict[str, float]:
    """The distribution a reader states with a diagnosis it gives outside a debate: its own view where that ranks
    the diagnosis first; certainty on it where it took the diagnosis over from the other (its view ranks another
    first), so that it never states a diagnosis its distribution ranks below another."""
    own = own_view(current, earlier, reader)
    if canonical(max(own, key=lambda x: (own[x], -list(own).index(x)))) == canonical(diagnosis):
        return own
    named = next((x for x in current.labels if canonical(x) == canonical(diagnosis)), diagnosis.strip())
    order = current.labels if named in current.labels else (*current.labels, named)
    return normalise({named: 1.0}, order)


def contentiousness_in(messages: list[dict[str, Any]]) -> float | None:
    return debate_level(_text(m) for m in messages if m["role"] == "user")


def asked_k(messages: list[dict[str, Any]]) -> int | None:
    system = "\n".join(_text(m) for m in messages if m["role"] == "system")
    if not _ASKED.search(system):
        return None
    found = _ASKED_K.search(system)
    return int(found.group("k")) if found else None


def _format(diagnosis: str, explanation: str) -> str:
    return f"Diagnosis: {diagnosis}\nExplanation: {explanation}"


def _why(current: Case, earlier: list[Case], label: str, probability: float) -> str:
    reason = evidence(current, earlier).get(label, (0.0, ""))[1]
    grounds = f"The description fits {label}: {reason}." if reason else f"Nothing in my context points elsewhere than {label}."
    return f"{grounds} I put it at {probability:.0%} among {len(current.labels)} candidates; I know no medicine and weigh words."


def answer(messages: list[dict[str, Any]], reader: Reader = FIRST) -> str:
    """The reply to the prompt: a diagnosis and explanation, and a distribution line when one is asked for."""
    cases = read_prompt(messages)
    if not cases:
        return _format("", "There is no case in the prompt.")
    current, earlier = cases[-1], [c for c in cases[:-1] if c.label]
    level = contentiousness_in(messages)
    k = asked_k(messages)
    if level is None and k is not None and _stated_by_other(current) is not None:
        level = 0.0  # debating another reader without a stated contentiousness: each holds by its own certainty
    if level is None and current.theirs:
        tag, diagnosis, explanation, _ = current.theirs[-1]
        if tag != "RATIFY" and diagnosis:
            # verbatim (the checker then agrees), and the distribution stated for it
            return _format(diagnosis, explanation) + _line(_holding(current, earlier, reader, diagnosis), k)
        if current.mine:
            return _format(*current.mine[-1]) + _line(_holding(current, earlier, reader, current.mine[-1][0]), k)
    probabilities = own_view(current, earlier, reader) if level is None else _debated(current, earlier, reader, level)
    label = max(probabilities, key=lambda x: (probabilities[x], -list(probabilities).index(x)))
    if level is not None and current.theirs:
        _, diagnosis, explanation, _ = current.theirs[-1]
        if canonical(diagnosis) == canonical(label) and explanation:
            return _format(label, explanation) + _line(probabilities, k)
    return _format(label, _why(current, earlier, label, probabilities[label])) + _line(probabilities, k)


def _line(probabilities: dict[str, float], k: int | None) -> str:
    """``\\nDistribution: ...`` over the ``k`` most probable candidates, two decimals ('' if none is asked for)."""
    if k is None:
        return ""
    ranked = sorted(probabilities, key=lambda x: -probabilities[x])[:k]
    kept = normalise({x: probabilities[x] for x in ranked})
    return f"\n{HEADING}: " + ", ".join(f"{x}: {p:.2f}" for x, p in kept.items())
