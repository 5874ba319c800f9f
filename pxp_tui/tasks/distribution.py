"""Probability distributions in replies: reading them, and the instruction that asks for one.

RAD: a line ``Distribution: Atelectasis: 0.6, Pneumonia: 0.3, ...`` over the five conditions. Also read:
percentages, ``Pneumonia (0.3)``, ``30% Pneumonia``, bullets, numbered lists, bold, a table, one
condition per line under the ``Distribution:`` heading; conditions by any name :func:`label_of`
knows. A diagnosis task's labels are read the same way (:func:`read_labelled`). DRUG: a top-k over
candidate reactant sets, one per line (or comma-separated), ``CCO.CC(=O)Cl: 0.6``, the sets
canonicalised with RDKit as MATCH compares them.

A top-``k`` request keeps the ``k`` most probable entries (the rest is cut, listed in
:attr:`ReadDistribution.cut`, and the kept ones renormalised): what the agent was asked for. Labels not
named get 0. Mass on an entry that names no label of the task is never dropped: RAD keeps it as
:data:`OTHER` (its five conditions are a closed set), a diagnosis task under the entry's own name (its
labels are those of its data; a model may name any disease); the names are listed in
:attr:`ReadDistribution.unread`. DRUG drops an entry that names no molecule (listed there too). The same
label written twice has its probabilities added; a line giving the total ("total 1.0") is not an entry.
A reply with no readable distribution gives none (:attr:`ReadDistribution.missing`): nothing is made up in its
place, and EVINCE leaves the round out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.rad.labels import LABELS, label_of

#: the heading that introduces a distribution in a reply
HEADING = "Distribution"
#: where RAD keeps the mass a reply gives to labels outside its five conditions
OTHER = "other"
#: the longest name of a label kept verbatim (a diagnosis outside the task's labels)
MAX_LABEL = 80
#: an entry that states a total, not a label's probability
_TOTAL = re.compile(r"\b(?:total|sum|overall|altogether)\b", re.IGNORECASE)

_MARKS = r"[\s>#*_\-•+]*"
_EMPH = r"(?:\*\*|__|\*|_)?"
_HEADER = re.compile(
    rf"^{_MARKS}(?:probability\s+)?(?:distribution|probabilities|differential(?:\s+diagnosis)?|top[\s-]?\d+)"
    rf"\s*(?:\([^)\n]*\))?\s*{_EMPH}\s*(?:[:：=–—-]|$){_EMPH}\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
#: the sections of the tasks' replies, which end a distribution block
_SECTION = re.compile(
    rf"^{_MARKS}(?:prediction|diagnosis|condition|impression|explanation|report|findings|reasoning|pathway|"
    rf"reactants|starting materials|precursors|rationale|justification)\s*{_EMPH}\s*[:：]",
    re.IGNORECASE,
)
_LIST_MARK = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+", re.MULTILINE)
_NUMBER = re.compile(r"(?<![\w.])(?P<num>\d+(?:\.\d+)?|\.\d+)\s*(?P<pct>%|percent\b)?", re.IGNORECASE)
_SMILES_ENTRY = re.compile(r"^(?P<body>.*?)[\s:=(–—-]+(?P<num>\d*\.?\d+)\s*(?P<pct>%|percent)?\s*\)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ReadDistribution:
    """A distribution read from a reply (normalised), or none (``missing``: the reply stated none readable)."""

    probabilities: dict[str, float]
    #: no distribution could be read: ``probabilities`` is empty
    missing: bool = False
    #: entries with a probability that named no label of the task (kept as OTHER, or under their name; DRUG drops them)
    unread: tuple[str, ...] = field(default=())
    #: labels beyond the top k asked for, cut (the kept ones renormalised)
    cut: tuple[str, ...] = field(default=())

    @property
    def top(self) -> str | None:
        """The most probable label (the first written, on a tie); None when none was read."""
        return max(self.probabilities, key=self.probabilities.__getitem__) if self.probabilities else None


def block(text: str) -> str | None:
    """The text of the reply's distribution: after its heading, up to the next section or blank line."""
    lines = text.replace("\r\n", "\n").split("\n")
    for index, line in enumerate(lines):
        found = _HEADER.match(line)
        if found is None:
            continue
        taken = [found.group("rest")] if found.group("rest").strip() else []
        for following in lines[index + 1 :]:
            if _SECTION.match(following) or _HEADER.match(following):
                break
            if not following.strip():
                if taken:
                    break
                continue
            taken.append(following)
        return "\n".join(taken)
    return None


#: (label or None, the text naming it, the number as written, whether it was a percentage)
Entry = tuple[str | None, str, float, bool]


def _collect(
    entries: list[Entry], unknown: Callable[[str], str | None] | None = None
) -> tuple[dict[str, float], tuple[str, ...]]:
    """Sum the probabilities of each label; the texts of entries that name no label.

    Numbers with ``%`` are percentages. Bare numbers are percentages if every bare number named by a
    label exceeds 1 ("Pneumonia: 60, Atelectasis: 40"); otherwise they are fractions, and a bare number
    above 1 is not a probability (a size, a count in a remark) and is not read. ``unknown`` gives the key
    an entry naming no label is kept under (None: dropped).
    """
    bare = [number for label, _, number, percent in entries if label is not None and not percent]
    scale = 100.0 if bare and all(n > 1 for n in bare) else 1.0
    found: dict[str, float] = {}
    unread = []
    for label, written, number, percent in entries:
        value = number / 100 if percent else number / scale
        if label is None and value <= 1 and _TOTAL.search(written):
            continue
        if label is None or value > 1:
            name = written.strip(" \t\n:=,;|*_()-")
            if any(ch.isalpha() for ch in written):
                unread.append(name)
                key = unknown(name) if unknown is not None and value <= 1 else None
                if key:
                    found[key] = found.get(key, 0.0) + value
            continue
        found[label] = found.get(label, 0.0) + value
    return found, tuple(unread)


def top_k(found: dict[str, float], k: int | None) -> tuple[dict[str, float], tuple[str, ...]]:
    """The ``k`` most probable entries (a tie: the first written) and the labels cut; all when ``k`` is None."""
    if k is None:
        return found, ()
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ranked = sorted((x for x in found if found[x] > 0), key=lambda x: -found[x])
    kept = set(ranked[:k])
    return {x: v for x, v in found.items() if x in kept}, tuple(x for x in ranked[k:])


def _rad_entries(text: str, name_of: Callable[[str], str | None] = label_of) -> list[Entry]:
    """(label, its text, value) pairs, with the label written before its number or after it."""
    text = _LIST_MARK.sub("", text.replace("|", " "))
    numbers = list(_NUMBER.finditer(text))
    gaps = [text[(numbers[i - 1].end() if i else 0) : n.start()] for i, n in enumerate(numbers)]
    gaps.append(text[numbers[-1].end() :] if numbers else text)
    values = [(float(n.group("num")), bool(n.group("pct"))) for n in numbers]
    before: list[Entry] = [(name_of(gaps[i]), gaps[i], v, pct) for i, (v, pct) in enumerate(values)]
    after: list[Entry] = [(name_of(gaps[i + 1]), gaps[i + 1], v, pct) for i, (v, pct) in enumerate(values)]

    def named(entries: list[Entry]) -> int:
        return sum(entry[0] is not None for entry in entries)

    return after if named(after) > named(before) else before


def _finish(
    found: dict[str, float], unread: tuple[str, ...], labels: tuple[str, ...] | None = None, cut: tuple[str, ...] = ()
) -> ReadDistribution:
    if found and sum(found.values()) > 0:
        if labels is not None:
            labels = (*labels, *(x for x in found if x not in labels))
        return ReadDistribution(normalise(found, labels), False, unread, cut)
    return ReadDistribution({}, True, unread)


def read_labelled(
    text: str,
    labels: tuple[str, ...],
    name_of: Callable[[str], str | None],
    k: int | None = None,
    unknown: Callable[[str], str | None] | None = None,
) -> ReadDistribution:
    """The top-``k`` distribution over ``labels`` in ``text`` (every label, zeros included, in their order),
    labels named by ``name_of``; an entry naming none is kept under ``unknown(its text)``, after them."""
    written = block(text)
    found, unread = _collect(_rad_entries(written, name_of), unknown) if written is not None else ({}, ())
    kept, cut = top_k(found, k)
    return _finish(kept, unread, labels, cut)


def read_rad(text: str, prediction: str, k: int | None = None) -> ReadDistribution:
    """The top-``k`` distribution over RAD's five conditions in ``text``, in :data:`LABELS` order (zeros
    included), with :data:`OTHER` after them when the reply gives mass to a condition outside the five.

    ``prediction`` (the reply's, any name of a condition) must name one of them: ValueError if it names none.
    """
    if label_of(prediction) is None:
        raise ValueError(f"the prediction {prediction!r} names none of {', '.join(LABELS)}")
    return read_labelled(text, LABELS, label_of, k, lambda name: OTHER)


def read_drug(text: str, prediction: str, target: str | None = None, k: int | None = None) -> ReadDistribution:
    """The top-``k`` distribution over reactant sets in ``text``; keys are sorted canonical SMILES joined by '.'.

    ``prediction`` (the reply's reactant SMILES) must be valid: ValueError if RDKit cannot read it.
    ``target`` is left out of a set that names it (as in ``target >> reactants``).
    """
    from pxp_tui.tasks.drug import chem

    if chem.canonical_parts(prediction) is None:
        raise ValueError(f"the prediction {prediction!r} is not valid SMILES")
    written = block(text)
    found, unread = _collect(_drug_entries(written, lambda body: chem.smiles_in(body, exclude=target))) if written else ({}, ())
    kept, cut = top_k(found, k)
    return _finish(kept, unread, cut=cut)


def _drug_entries(text: str, molecules: Callable[[str], list[str]]) -> list[Entry]:
    entries: list[Entry] = []
    for line in text.replace("|", " ").replace("`", " ").replace("**", " ").split("\n"):
        for entry in re.split(r"[,;]\s*", _LIST_MARK.sub("", line)):
            found = _SMILES_ENTRY.match(entry.strip())
            if found is None:
                continue
            smiles = molecules(found.group("body").strip())
            number, percent = float(found.group("num")), bool(found.group("pct"))
            entries.append((".".join(smiles) if smiles else None, found.group("body"), number, percent))
    return entries


def rad_instruction(k: int = len(LABELS)) -> str:
    """What a RAD prompt adds to ask for a distribution over the ``k`` most likely conditions."""
    if not 1 <= k <= len(LABELS):
        raise ValueError(f"k must be between 1 and {len(LABELS)}, got {k}")
    if k == len(LABELS):
        listing = ", ".join(f"{label}: <p>" for label in LABELS)
        which = "each of the five conditions"
    else:
        listing = ", ".join("<condition>: <p>" for _ in range(k))
        which = f"the {k} most likely conditions (any other is taken as 0)"
    return (
        f"After the explanation, add one line giving your probability for {which}, "
        f"between 0 and 1 and summing to 1, your prediction the most probable:\n{HEADING}: {listing}"
    )


def drug_instruction(k: int = 5) -> str:
    """What a DRUG prompt adds to ask for a top-``k`` distribution over candidate reactant sets."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return (
        f"After the explanation, add a distribution over at most {k} candidate reactant sets for this step, "
        "your pathway's the most probable, one per line, probabilities between 0 and 1 summing to 1:\n"
        f"{HEADING}:\n<reactant SMILES separated by '.'>: <p>"
    )
