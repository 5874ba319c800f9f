"""The offline RAD baseline: nearest neighbour on downsampled pixels of the labelled cases in its context.

It reads only its prompt, as a vision LLM would: the X-ray of this session (a data URL), the
thumbnails of the earlier cases carried in the context, and the radiologist's replies, whose
prediction labels each earlier case. It answers with the label of the nearest labelled case, names
that case and quotes its report; with no labelled case it says so and states its prior. After a
reply in this session that does not ratify, it takes the radiologist's diagnosis and report over,
word for word.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.base import HUMAN_REPLY, before_ask
from pxp_tui.tasks.debating import contentiousness_in as debate_level
from pxp_tui.tasks.debating import debated
from pxp_tui.tasks.distribution import HEADING
from pxp_tui.tasks.parsing import sections
from pxp_tui.tasks.rad import images
from pxp_tui.tasks.rad.labels import LABELS, label_of

_CASE = re.compile(r"^Chest X-ray, case (?P<key>.*?)\.(?: Which condition does it show\?)?$")
_ALIASES = {"prediction": ["prediction"], "explanation": ["explanation"], "distribution": ["distribution"]}


@dataclass
class Case:
    """One session as seen in the prompt: the X-ray, and the answers exchanged about it."""

    key: str
    url: str
    machine: list[tuple[str, str]] = field(default_factory=list)  # (prediction, explanation)
    human: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, label, report)
    said: list[str] = field(default_factory=list)  # the human's (the other agent's) messages, whole

    @property
    def label(self) -> tuple[str, str] | None:
        """The radiologist's latest diagnosis of this case and its report, if they gave one."""
        for _, label, report in reversed(self.human):
            if label:
                return label, report
        return None


def _parts(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


def read_prompt(messages: list[dict[str, Any]]) -> list[Case]:
    cases: list[Case] = []
    for message in messages:
        parts = _parts(message.get("content"))
        urls = [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]
        text = before_ask("\n".join(p.get("text", "") for p in parts if p.get("type") == "text"))
        if message["role"] == "user" and urls:
            found = _CASE.match(text.strip().splitlines()[0] if text.strip() else "")
            cases.append(Case(found.group("key") if found else "?", urls[0]))
        elif cases and message["role"] == "assistant":
            said = sections(text, _ALIASES)
            cases[-1].machine.append((said.get("prediction", ""), said.get("explanation", "")))
        elif cases and message["role"] == "user":
            reply = HUMAN_REPLY.match(text)
            said = sections(text, _ALIASES)
            label = label_of(said.get("prediction", "")) or ""
            cases[-1].human.append((reply.group("tag") if reply else "", label, said.get("explanation", "")))
            cases[-1].said.append(text)
    return cases


@dataclass(frozen=True)
class Reader:
    """How an offline reader sees X-rays: the side of its grey-level features, the softmax temperature of its
    distribution over distances, and (in a debate) the seed and softmax temperature of its fixed random
    projection, its prior opinion of a case (it knows no radiology: the projection only makes two readers
    disagree in a deterministic, image-dependent way)."""

    side: int = images.FEATURE_SIDE
    temperature: float = 0.05  # DISTANCE_TEMPERATURE
    seed: int = 1
    prior_temperature: float = 0.05


#: the machine's offline reader, and the second one (``--human model:offline``): coarser features (8x8), a
#: softmax twice as warm, and a prior ten times as warm (the paper's "one agent at high temperature and the
#: other at low"): in a debate the machine's prior view is sharp, the second's spread
FIRST, SECOND = Reader(), Reader(side=8, temperature=0.10, seed=2, prior_temperature=0.5)


def _scored(current: Case, earlier: list[Case], side: int = images.FEATURE_SIDE) -> list[tuple[float, int]]:
    """(distance to the current X-ray, index) of each earlier case, nearest first."""
    here = images.features(current.url, side)
    return sorted((images.distance(here, images.features(c.url, side)), i) for i, c in enumerate(earlier))


def _format(prediction: str, explanation: str) -> str:
    return f"Prediction: {prediction}\nExplanation: {explanation}"


def answer(messages: list[dict[str, Any]], reader: Reader = FIRST) -> str:
    """The reply to the prompt; with a distribution line when the prompt asks for one, and as a debater
    (:func:`debate`) when it sets a contentiousness, or when it asks for a distribution and the other's latest
    reply in this session states one (a debate at contentiousness 0: each reader holds by its own certainty)."""
    level = contentiousness_in(messages)
    k = asked_k(messages)
    if level is None and k is not None and _stated_by_other(messages) is not None:
        level = 0.0  # debating another reader without a stated contentiousness: each holds by its own certainty
    text = debate(messages, reader, level) if level is not None else _answer(messages, reader)
    if k is None:
        return text
    said = sections(text, _ALIASES)
    if level is None:
        probabilities = softmax_over_distances(nearest_by_label(messages, reader.side), reader.temperature)
    else:
        probabilities = _debated(messages, reader, level)
    return text + "\n" + distribution_line(probabilities, k, said.get("prediction", ""))


def _answer(messages: list[dict[str, Any]], reader: Reader) -> str:
    cases = read_prompt(messages)
    if not cases:
        return _format("", "There is no X-ray in the prompt.")
    current, earlier = cases[-1], [c for c in cases[:-1] if c.label]
    if current.human:
        tag, label, report = current.human[-1]
        if tag != "RATIFY" and label:
            # verbatim: any words added could make the checker call the revision unchanged
            return _format(label, report)
        if current.machine:
            return _format(*current.machine[-1])
    if not earlier:
        return _format(
            LABELS[0],
            "No labelled case is in my context yet, so I cannot compare this X-ray with any. I rely on my "
            f"prior: each of the five conditions ({', '.join(LABELS)}) equally likely, 1/5; on a tie I "
            f"name the first, {LABELS[0]}.",
        )
    distance, index = _scored(current, earlier, reader.side)[0]
    nearest = earlier[index]
    label, report = nearest.label  # type: ignore[misc]
    side = reader.side
    return _format(
        label,
        f"Nearest earlier case: {nearest.key}, labelled {label} by the radiologist (distance {distance:.2f} "
        f"between {side}x{side} grey-level images; {len(earlier)} labelled cases compared). "
        f"I read this X-ray the same way. {REPORT_QUOTED}{own_report(report)}",
    )


#: how the baseline introduces the report it quotes
REPORT_QUOTED = "The radiologist's report of that case: "


def own_report(report: str) -> str:
    """The report of a case as the radiologist wrote it: where they ratified the baseline's explanation, which quoted
    an earlier case's report, that report once (not the explanations around it, quoted again at every case)."""
    return report.rpartition(REPORT_QUOTED)[2] if report.startswith("Nearest earlier case:") else report


# -- distributions and debate (EVINCE) ------------------------------------------------------------------
_ASKED = re.compile(r"^" + HEADING + r": ", re.M)
_ASKED_K = re.compile(r"the (?P<k>\d+) most likely conditions")


def _texts(messages: list[dict[str, Any]], role: str | None = None) -> list[str]:
    return [
        "\n".join(p.get("text", "") for p in _parts(m.get("content")) if p.get("type") == "text")
        for m in messages
        if role is None or m["role"] == role
    ]


def asked_k(messages: list[dict[str, Any]]) -> int | None:
    """How many conditions the system prompt asks a distribution over (None: it asks for none)."""
    system = "\n".join(_texts(messages, "system"))
    if not _ASKED.search(system):
        return None
    found = _ASKED_K.search(system)
    return int(found.group("k")) if found else len(LABELS)


def contentiousness_in(messages: list[dict[str, Any]]) -> float | None:
    """The debate's contentiousness the latest request sets (None: not a debate)."""
    return debate_level(_texts(messages, "user"))


def distribution_line(probabilities: Mapping[str, float], k: int, prediction: str = "") -> str:
    """``Distribution: ...`` over the ``k`` most probable conditions (the prediction among them), two decimals."""
    ranked = sorted(LABELS, key=lambda x: (x != prediction, -probabilities.get(x, 0.0), LABELS.index(x)))[:k]
    kept = normalise({x: probabilities.get(x, 0.0) for x in ranked}) if any(probabilities.get(x) for x in ranked) else {}
    listing = {x: kept.get(x, 0.0) for x in (LABELS if k == len(LABELS) else ranked)}
    return f"{HEADING}: " + ", ".join(f"{x}: {p:.2f}" for x, p in listing.items())


def _prior(url: str, reader: Reader) -> dict[str, float]:
    """The reader's opinion of an X-ray with no labelled case to compare: a softmax over a fixed random
    projection of its features (seeded: the same X-ray always gets the same opinion from the same reader)."""
    here = images.features(url, reader.side)
    rng = random.Random(reader.seed)
    scale = 1 / math.sqrt(len(here))
    logits = {x: scale * sum(v * rng.gauss(0, 1) for v in here) for x in LABELS}
    top = max(logits.values())
    return normalise({x: math.exp((v - top) / reader.prior_temperature) for x, v in logits.items()}, LABELS)


def own_view(messages: list[dict[str, Any]], reader: Reader) -> tuple[dict[str, float], str]:
    """The reader's own distribution for this X-ray, and why: its prior (:func:`_prior`) mixed with the softmax
    over its nearest labelled case of each condition (labels the other agent gave in earlier sessions),
    the latter weighing the share of the five conditions that have a labelled case."""
    cases = read_prompt(messages)
    current, earlier = cases[-1], [c for c in cases[:-1] if c.label]
    prior = _prior(current.url, reader)
    if not earlier:
        return prior, "my reading of the image alone (no labelled case to compare)"
    nearest: dict[str, float] = {}
    for distance, index in _scored(current, earlier, reader.side):
        nearest.setdefault(earlier[index].label[0], distance)  # type: ignore[index]
    near, w = softmax_over_distances(nearest, reader.temperature), len(nearest) / len(LABELS)
    side = reader.side
    return (
        normalise({x: w * near[x] + (1 - w) * prior[x] for x in LABELS}, LABELS),
        f"my reading of the image and the nearest of {len(earlier)} labelled cases in {side}x{side} grey levels",
    )


def _stated_by_other(messages: list[dict[str, Any]]) -> dict[str, float] | None:
    """The other agent's latest distribution in this session, as its message states it (None: it states none)."""
    from pxp_tui.tasks.distribution import read_rad

    cases = read_prompt(messages)
    if not cases or not cases[-1].human:
        return None
    read = read_rad(cases[-1].said[-1], cases[-1].human[-1][1] or LABELS[0])
    return None if read.missing else read.probabilities


def _other_distribution(messages: list[dict[str, Any]]) -> dict[str, float] | None:
    """The other agent's latest distribution as its message states it; when it states none (the proxy, an
    expert), certainty on its condition, as this reader takes such an answer."""
    stated = _stated_by_other(messages)
    if stated is not None:
        return stated
    cases = read_prompt(messages)
    named = cases[-1].human[-1][1] if cases and cases[-1].human else ""
    return normalise({named: 1.0}, LABELS) if named else None


def _debated(messages: list[dict[str, Any]], reader: Reader, level: float) -> dict[str, float]:
    """Its own view mixed with the other's latest distribution (:func:`pxp_tui.tasks.debating.debated`)."""
    own, _ = own_view(messages, reader)
    other = _other_distribution(messages)
    theirs = None if other is None else {x: other.get(x, 0.0) for x in LABELS}
    return debated(own, theirs if theirs and any(theirs.values()) else None, level, LABELS)


def debate(messages: list[dict[str, Any]], reader: Reader, level: float) -> str:
    """A debater's reply: its view weighed against the other's at this contentiousness; the other's diagnosis
    and report taken over verbatim when the weighed distribution comes to it (the checker then agrees)."""
    cases = read_prompt(messages)
    if not cases:
        return _format("", "There is no X-ray in the prompt.")
    current = cases[-1]
    probabilities = _debated(messages, reader, level)
    label = max(LABELS, key=lambda x: (probabilities[x], -LABELS.index(x)))
    if current.human:
        _, other_label, report = current.human[-1]
        if label == other_label and report:
            return _format(label, report)
    _, why = own_view(messages, reader)
    return _format(
        label,
        f"On {why}, {label} is the most probable of the five conditions; the other reading does not outweigh it.",
    )


#: softmax temperature of :func:`distribution`, in the units of :func:`images.distance` (the RMS
#: difference of standardised grey levels, between 0 and 2; nearest neighbours of the demo phantoms lie
#: 0.15 to 0.35 away): a condition whose nearest case is 0.05 further is e times less probable. On the
#: demo phantoms (cases 11-40, each with the earlier ones labelled) it gives the lowest log loss of the
#: reference among 0.01-0.15 (2.74 bits; 2.79 at 0.03, 2.87 at 0.08) and a median entropy of 1.8 bits.
DISTANCE_TEMPERATURE = 0.05


def nearest_by_label(messages: list[dict[str, Any]], side: int = images.FEATURE_SIDE) -> dict[str, float]:
    """For each condition the radiologist gave a case in the prompt, the distance from this X-ray to the
    nearest such case; this X-ray itself counts, at distance 0, once the radiologist has labelled it."""
    cases = read_prompt(messages)
    if not cases:
        raise ValueError("there is no X-ray in the prompt")
    current, earlier = cases[-1], [c for c in cases[:-1] if c.label]
    nearest: dict[str, float] = {}
    for distance, index in _scored(current, earlier, side) if earlier else ():
        nearest.setdefault(earlier[index].label[0], distance)  # type: ignore[index]
    if current.label:
        nearest[current.label[0]] = 0.0
    return nearest


def softmax_over_distances(nearest: Mapping[str, float], temperature: float = DISTANCE_TEMPERATURE) -> dict[str, float]:
    """``exp(-d / temperature)`` per condition, normalised, over :data:`LABELS` in order; a condition with
    no labelled case gets 0, and with none at all every condition gets the prior 1/5."""
    if not temperature > 0:
        raise ValueError(f"the temperature must be positive, got {temperature!r}")
    if not nearest:
        return normalise(dict.fromkeys(LABELS, 1.0), LABELS)
    low = min(nearest.values())
    return normalise({label: math.exp(-(d - low) / temperature) for label, d in nearest.items()}, LABELS)


def distribution(messages: list[dict[str, Any]], temperature: float = DISTANCE_TEMPERATURE) -> dict[str, float]:
    """The baseline's distribution over the five conditions for its prompt: a softmax over the distances
    of :func:`nearest_by_label`. Its most probable condition is the one :func:`answer` names."""
    return softmax_over_distances(nearest_by_label(messages), temperature)
