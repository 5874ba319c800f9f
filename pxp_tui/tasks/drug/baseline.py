"""The offline DRUG baseline: template retrosynthesis that learns from the chemist's replies.

It reads only its prompt (as an LLM would): the target from the instance message, and from the
context the chemist's replies. It proposes the first applicable disconnection of its template
library, ranked by how often the chemist confirmed a template (a RATIFY of an answer built with
it, or a reactant set of the chemist's that the template gives); it adopts a reactant set the chemist
gave for the same target, in this session or an earlier one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.base import HUMAN_REPLY, before_ask
from pxp_tui.tasks.drug import chem, templates
from pxp_tui.tasks.drug.prompt import target_of
from pxp_tui.tasks.parsing import sections

_ALIASES = {"prediction": ["pathway"], "explanation": ["explanation"], "distribution": ["distribution"]}


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


def answer(messages: list[dict[str, Any]]) -> str:
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
        return _format(
            target,
            "None of the disconnections in my template library (amide, ester, ether, N-alkylation, "
            "sulfonamide, urea, carbamate, biaryl coupling, reductive amination, ...) applies to this "
            "target, so I cannot propose a single step.",
        )
    best = _ranked(options, confirmed)[0]
    return _format(best.smiles, templates.explain(best, target))


def _ranked(options: list[templates.Disconnection], confirmed: Counter[str]) -> list[templates.Disconnection]:
    """The disconnections in the baseline's order of preference: templates the chemist confirmed most
    first, then the library's priority order (stable: the earlier of equals first)."""
    order = {t.name: i for i, t in enumerate(templates.TEMPLATES)}
    return sorted(options, key=lambda d: (-confirmed[d.template.name], order.get(d.template.name, len(order))))


#: softmax temperature over ranks in :func:`distribution`: each candidate e times less probable than
#: the one before it (the baseline's ranking is an order, not a score)
RANK_TEMPERATURE = 1.0


def candidates(messages: list[dict[str, Any]]) -> list[str]:
    """The reactant sets the baseline stands by, best first, as sorted canonical SMILES joined by '.':
    the one :func:`answer` gives, then the target's other disconnections in the baseline's ranking."""
    segments = read_prompt(messages)
    if not segments:
        raise ValueError("there is no target molecule in the prompt")
    given = chem.canonical_parts(sections(answer(messages), _ALIASES).get("prediction", ""))
    ranked = [".".join(given)] if given else []
    confirmed, _ = _learn(segments[:-1])
    target = chem.canonical(segments[-1].target) or segments[-1].target
    for option in _ranked(templates.disconnections(target), confirmed):
        if option.smiles not in ranked:
            ranked.append(option.smiles)
    return ranked


def distribution(messages: list[dict[str, Any]], k: int = 5, temperature: float = RANK_TEMPERATURE) -> dict[str, float]:
    """The baseline's top-``k`` distribution over reactant sets: ``exp(-rank / temperature)`` over
    :func:`candidates`, normalised. Its most probable set is the one :func:`answer` gives."""
    if k < 1 or not temperature > 0:
        raise ValueError(f"k must be at least 1 and the temperature positive, got k={k}, temperature={temperature!r}")
    ranked = candidates(messages)[:k]
    return normalise({smiles: math.exp(-rank / temperature) for rank, smiles in enumerate(ranked)})


_ASKED_K = re.compile(r"a distribution over at most (?P<k>\d+) candidate reactant sets")


def reply(messages: list[dict[str, Any]]) -> str:
    """:func:`answer`, with the top-k :func:`distribution` after it when the system prompt asks for one (issue 10)."""
    text = answer(messages)
    system = "\n".join(_text(m["content"]) for m in messages if m["role"] == "system")
    asked = _ASKED_K.search(system)
    if asked is None or not read_prompt(messages):
        return text
    probabilities = distribution(messages, int(asked.group("k")))
    return text + "\nDistribution:\n" + "\n".join(f"{smiles}: {p:.2f}" for smiles, p in probabilities.items())
