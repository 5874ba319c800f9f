"""The offline DRUG baseline: template retrosynthesis that learns from the chemist's replies.

It reads only its prompt (as an LLM would): the target from the instance message, and from the
context the chemist's replies. It proposes the first applicable disconnection of its template
library, ranked by how often the chemist confirmed a template (a RATIFY of an answer built with
it, or a reactant set of the chemist's that the template gives); it adopts a reactant set the chemist
gave for the same target, in this session or an earlier one.

A second reader (``--human model:offline``) is another chemist's taste: a fixed, seeded preference per
(target, reactant set) reorders its candidates, and its softmax over ranks is sharper. In a debate (the
prompt sets a contentiousness; or, asked for a distribution, the other's latest reply states one: then at
contentiousness 0) each states its view mixed with the other's latest distribution
(:mod:`pxp_tui.tasks.debating`) and names the most probable set.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.base import HUMAN_REPLY, before_ask
from pxp_tui.tasks.debating import contentiousness_in, debated, idiosyncrasy
from pxp_tui.tasks.distribution import read_drug
from pxp_tui.tasks.drug import chem, templates
from pxp_tui.tasks.drug.prompt import target_of
from pxp_tui.tasks.parsing import sections

_ALIASES = {"prediction": ["pathway"], "explanation": ["explanation"], "distribution": ["distribution"]}


@dataclass(frozen=True)
class Reader:
    """How an offline chemist ranks a target's disconnections: each one's place in the baseline's order, moved
    by ``prior`` times a fixed, seeded score in [-1, 1] per (target, reactant set) (its taste), and the
    softmax temperature over the resulting ranks."""

    temperature: float
    prior: float
    seed: int


#: the machine's reader (the baseline's own order, each candidate e times less probable than the one before)
#: and the second one (``--human model:offline``): its own taste, and sharper
FIRST, SECOND = Reader(temperature=1.0, prior=0.0, seed=1), Reader(temperature=0.7, prior=2.0, seed=2)


@dataclass
class _Segment:
    """One session as seen in the prompt."""

    target: str
    turns: list[tuple[str, str, str, str]] = field(default_factory=list)  # (role, tag, pathway, explanation)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if p.get("type") == "text")


def read_prompt(messages: list[dict[str, Any]]) -> list[_Segment]:
    segments: list[_Segment] = []
    for message in messages:
        if message["role"] == "system":
            continue
        text = _text(message["content"])
        target = target_of(text) if message["role"] == "user" else None
        if target is not None:
            segments.append(_Segment(target))
            continue
        if not segments:
            continue
        text = before_ask(text)
        found = sections(text, _ALIASES)
        if message["role"] == "assistant":
            segments[-1].turns.append(("machine", "", found.get("prediction", ""), found.get("explanation", "")))
        else:
            tag = HUMAN_REPLY.search(text)
            segments[-1].turns.append(
                ("human", tag.group("tag") if tag else "", found.get("prediction", ""), found.get("explanation", ""))
            )
    return segments


def _learn(segments: list[_Segment]) -> tuple[Counter[str], dict[str, tuple[str, str]]]:
    """Templates the chemist confirmed, and the chemist's latest reactants per target."""
    confirmed: Counter[str] = Counter()
    given: dict[str, tuple[str, str]] = {}
    for segment in segments:
        target = chem.canonical(segment.target) or segment.target
        previous = None
        for role, tag, pathway, explanation in segment.turns:
            if role == "machine":
                previous = pathway
                continue
            if tag == "RATIFY" and previous:
                template = templates.identify(target, previous)
                if template is not None:
                    confirmed[template.name] += 1
            if pathway and chem.canonical_parts(pathway):
                given[target] = (pathway, explanation)
                template = templates.identify(target, pathway)
                if template is not None:
                    confirmed[template.name] += 1
    return confirmed, given


def _format(pathway: str, explanation: str) -> str:
    return f"Pathway: {pathway}\nExplanation: {explanation}"


def _adopt(pathway: str, explanation: str, where: str) -> str:
    """The chemist's answer, taken over. (Naming the template here would pull the explanation back
    towards the machine's own earlier one, and the checker would call the revision unchanged.)"""
    return _format(pathway, f"{explanation.strip()} ({where})")


def answer(messages: list[dict[str, Any]], reader: Reader = FIRST) -> str:
    segments = read_prompt(messages)
    if not segments:
        return "Pathway: \nExplanation: no target molecule in the prompt."
    current, earlier = segments[-1], segments[:-1]
    target = chem.canonical(current.target) or current.target
    confirmed, given = _learn(earlier)
    humans = [t for t in current.turns if t[0] == "human"]
    machines = [t for t in current.turns if t[0] == "machine"]
    if humans:
        _, tag, pathway, explanation = humans[-1]
        if tag != "RATIFY" and pathway and chem.canonical_parts(pathway):
            return _adopt(pathway, explanation, "revised after the chemist's reply")
        if machines:
            return _format(machines[-1][2], machines[-1][3])
    if target in given:
        pathway, explanation = given[target]
        return _adopt(pathway, explanation, "as the chemist gave for this molecule in an earlier session")
    options = templates.disconnections(target)
    if not options:
        return _no_disconnection(target)
    best = _ranked(options, confirmed, target, reader)[0]
    return _format(best.smiles, templates.explain(best, target))


def _no_disconnection(target: str) -> str:
    return _format(
        target,
        "None of the disconnections in my template library (amide, ester, ether, N-alkylation, "
        "sulfonamide, urea, carbamate, biaryl coupling, reductive amination, ...) applies to this "
        "target, so I cannot propose a single step.",
    )


def _ranked(
    options: list[templates.Disconnection], confirmed: Counter[str], target: str = "", reader: Reader = FIRST
) -> list[templates.Disconnection]:
    """The disconnections in the reader's order of preference: templates the chemist confirmed most first,
    then the library's priority order (stable: the earlier of equals first); a reader with a ``prior`` moves
    each by its seeded taste for (target, reactant set)."""
    order = {t.name: i for i, t in enumerate(templates.TEMPLATES)}
    base = sorted(options, key=lambda d: (-confirmed[d.template.name], order.get(d.template.name, len(order))))
    if not reader.prior:
        return base
    return sorted(base, key=lambda d: base.index(d) - reader.prior * idiosyncrasy(reader.seed, target, d.smiles))


#: softmax temperature over ranks in :func:`distribution`: each candidate e times less probable than
#: the one before it (the baseline's ranking is an order, not a score)
RANK_TEMPERATURE = FIRST.temperature


def candidates(messages: list[dict[str, Any]], reader: Reader = FIRST) -> list[str]:
    """The reactant sets the reader stands by, best first, as sorted canonical SMILES joined by '.':
    the one :func:`answer` gives, then the target's other disconnections in the reader's ranking."""
    segments = read_prompt(messages)
    if not segments:
        raise ValueError("there is no target molecule in the prompt")
    given = chem.canonical_parts(sections(answer(messages, reader), _ALIASES).get("prediction", ""))
    ranked = [".".join(given)] if given else []
    confirmed, _ = _learn(segments[:-1])
    target = chem.canonical(segments[-1].target) or segments[-1].target
    for option in _ranked(templates.disconnections(target), confirmed, target, reader):
        if option.smiles not in ranked:
            ranked.append(option.smiles)
    return ranked


def distribution(
    messages: list[dict[str, Any]], k: int = 5, temperature: float | None = None, reader: Reader = FIRST
) -> dict[str, float]:
    """The reader's top-``k`` distribution over reactant sets: ``exp(-rank / temperature)`` over
    :func:`candidates` (the reader's own temperature by default), normalised. Its most probable set is the
    one :func:`answer` gives."""
    temperature = reader.temperature if temperature is None else temperature
    if k < 1 or not temperature > 0:
        raise ValueError(f"k must be at least 1 and the temperature positive, got k={k}, temperature={temperature!r}")
    ranked = candidates(messages, reader)[:k]
    return normalise({smiles: math.exp(-rank / temperature) for rank, smiles in enumerate(ranked)})


_ASKED_K = re.compile(r"a distribution over at most (?P<k>\d+) candidate reactant sets")


def reply(messages: list[dict[str, Any]], reader: Reader = FIRST) -> str:
    """:func:`answer`, with the top-k :func:`distribution` after it when the system prompt asks for one; in a
    debate (the request sets a contentiousness), :func:`debate`."""
    system = "\n".join(_text(m["content"]) for m in messages if m["role"] == "system")
    asked = _ASKED_K.search(system)
    level = contentiousness_in(_text(m["content"]) for m in messages if m["role"] == "user")
    if level is None and asked is not None and read_prompt(messages) and _states_one(messages):
        level = 0.0  # debating another reader without a stated contentiousness: each holds by its own certainty
    if level is not None and asked is not None and read_prompt(messages):
        return debate(messages, reader, level, int(asked.group("k")))
    text = answer(messages, reader)
    if asked is None or not read_prompt(messages):
        return text
    return text + _listing(distribution(messages, int(asked.group("k")), reader=reader))


def _listing(probabilities: dict[str, float]) -> str:
    return "\nDistribution:\n" + "\n".join(f"{smiles}: {p:.2f}" for smiles, p in probabilities.items())


def _other_distribution(messages: list[dict[str, Any]], target: str) -> tuple[dict[str, float], str, str] | None:
    """The other agent's latest distribution in this session as its message states it, its set and explanation."""
    users = [m for m in messages if m["role"] == "user"]
    if not read_prompt(messages)[-1].turns or not users or target_of(_text(users[-1]["content"])) is not None:
        return None
    text = before_ask(_text(users[-1]["content"]))
    said = sections(text, _ALIASES)
    parts = chem.canonical_parts(said.get("prediction", ""))
    if not parts:
        return None
    read = read_drug(text, ".".join(parts), target)
    # an answer stating no distribution (the proxy, an expert): certainty on its set, as this reader takes it
    return read.probabilities or {".".join(parts): 1.0}, ".".join(parts), said.get("explanation", "")


def _states_one(messages: list[dict[str, Any]]) -> bool:
    """Whether the other agent's latest reply in this session states a distribution."""
    segments = read_prompt(messages)
    users = [m for m in messages if m["role"] == "user"]
    if not segments[-1].turns or not users or target_of(_text(users[-1]["content"])) is not None:
        return False
    target = chem.canonical(segments[-1].target) or segments[-1].target
    text = before_ask(_text(users[-1]["content"]))
    parts = chem.canonical_parts(sections(text, _ALIASES).get("prediction", ""))
    return bool(parts) and not read_drug(text, ".".join(parts or []), target).missing


def debate(messages: list[dict[str, Any]], reader: Reader, level: float, k: int) -> str:
    """A debater's reply: its own distribution (over every candidate it stands by) mixed with the other's latest
    at this contentiousness, the most probable set named, and the top ``k`` stated. The other's explanation
    is taken over verbatim when the mix comes to the other's set (the checker then agrees)."""
    segments = read_prompt(messages)
    target = chem.canonical(segments[-1].target) or segments[-1].target
    confirmed, given = _learn(segments[:-1])
    options = _ranked(templates.disconnections(target), confirmed, target, reader)
    earlier = chem.canonical_parts(given[target][0]) if target in given else None
    ranked = list(dict.fromkeys([*([".".join(earlier)] if earlier else []), *(o.smiles for o in options)]))
    if not ranked:
        return _no_disconnection(target) + _listing({target: 1.0})
    own = normalise({smiles: math.exp(-rank / reader.temperature) for rank, smiles in enumerate(ranked)})
    other = _other_distribution(messages, target)
    probabilities = debated(own, other[0] if other else None, level)
    best = max(probabilities, key=lambda x: (probabilities[x], -list(probabilities).index(x)))
    kept = sorted(probabilities, key=lambda x: -probabilities[x])[:k]
    listing = _listing(normalise({x: probabilities[x] for x in kept}))
    if other is not None and other[1] == best and other[2]:
        return _format(best, other[2]) + listing
    option = next((o for o in options if o.smiles == best), None)
    if option is not None:
        return _format(best, templates.explain(option, target)) + listing
    return (
        _format(
            best,
            f"Weighing the other expert's distribution against my own, this set is the most probable ({probabilities[best]:.0%}).",
        )
        + listing
    )
