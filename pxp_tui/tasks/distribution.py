"""Probability distributions in replies (issue 10): reading them, and the instruction that asks for one.

RAD: a line ``Distribution: Atelectasis: 0.6, Pneumonia: 0.3, ...`` over the five conditions. Also read:
percentages, ``Pneumonia (0.3)``, ``30% Pneumonia``, bullets, numbered lists, bold, a table, one
condition per line under the ``Distribution:`` heading; conditions by any name :func:`label_of`
knows. DRUG: a top-k over candidate reactant sets, one per line (or comma-separated), ``CCO.CC(=O)Cl:
0.6``, the sets canonicalised with RDKit as MATCH compares them.

Conditions or sets not named get 0 and the rest is renormalised; mass on an entry that names no
known label is dropped (and listed in :attr:`ReadDistribution.unread`); the same label written twice
has its probabilities added. A reply with no readable distribution gives a one-hot on the
prediction, marked as a fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pxp_tui.protocol.information import normalise
from pxp_tui.tasks.rad.labels import LABELS, label_of

#: the heading that introduces a distribution in a reply
HEADING = "Distribution"

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
    """A distribution read from a reply (normalised), or the fallback one-hot on the prediction."""

    probabilities: dict[str, float]
    #: no distribution could be read: the probabilities are a one-hot on the prediction
    fallback: bool = False
    #: entries with a probability that named no known label (their mass was dropped)
    unread: tuple[str, ...] = field(default=())

    @property
    def top(self) -> str:
        """The most probable label (the first written, on a tie)."""
        return max(self.probabilities, key=self.probabilities.__getitem__)


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


def _collect(entries: list[Entry]) -> tuple[dict[str, float], tuple[str, ...]]:
    """Sum the probabilities of each label; the texts of entries that are not read.

    Numbers with ``%`` are percentages. Bare numbers are percentages if every bare number named by a
    label exceeds 1 ("Pneumonia: 60, Atelectasis: 40"); otherwise they are fractions, and a bare number
    above 1 is not a probability (a size, a count in a remark) and is not read.
    """
    bare = [number for label, _, number, percent in entries if label is not None and not percent]
    scale = 100.0 if bare and all(n > 1 for n in bare) else 1.0
    found: dict[str, float] = {}
    unread = []
    for label, written, number, percent in entries:
        value = number / 100 if percent else number / scale
        if label is None or value > 1:
            if any(ch.isalpha() for ch in written):
                unread.append(written.strip(" \t\n:=,;|*_()-"))
            continue
        found[label] = found.get(label, 0.0) + value
    return found, tuple(unread)


def _rad_entries(text: str) -> list[Entry]:
    """(condition, its text, value) pairs, with the condition written before its number or after it."""
    text = _LIST_MARK.sub("", text.replace("|", " "))
    numbers = list(_NUMBER.finditer(text))
    gaps = [text[(numbers[i - 1].end() if i else 0) : n.start()] for i, n in enumerate(numbers)]
    gaps.append(text[numbers[-1].end() :] if numbers else text)
    values = [(float(n.group("num")), bool(n.group("pct"))) for n in numbers]
    before: list[Entry] = [(label_of(gaps[i]), gaps[i], v, pct) for i, (v, pct) in enumerate(values)]
    after: list[Entry] = [(label_of(gaps[i + 1]), gaps[i + 1], v, pct) for i, (v, pct) in enumerate(values)]

    def named(entries: list[Entry]) -> int:
        return sum(entry[0] is not None for entry in entries)

    return after if named(after) > named(before) else before


def _finish(
    found: dict[str, float], unread: tuple[str, ...], fallback: str, labels: tuple[str, ...] | None = None
) -> ReadDistribution:
    if found and sum(found.values()) > 0:
        return ReadDistribution(normalise(found, labels), False, unread)
    return ReadDistribution(normalise({fallback: 1.0}, labels), True, unread)


def read_rad(text: str, prediction: str) -> ReadDistribution:
    """The distribution over RAD's five conditions in ``text``, in :data:`LABELS` order (zeros included).

    ``prediction`` (any name of a condition) is the fallback's one-hot; ValueError if it names none.
    """
    predicted = label_of(prediction)
    if predicted is None:
        raise ValueError(f"the prediction {prediction!r} names none of {', '.join(LABELS)}")
    written = block(text)
    found, unread = _collect(_rad_entries(written)) if written is not None else ({}, ())
    return _finish(found, unread, predicted, LABELS)


def read_drug(text: str, prediction: str, target: str | None = None, k: int | None = None) -> ReadDistribution:
    """The top-``k`` distribution over reactant sets in ``text``; keys are sorted canonical SMILES joined by '.'.

    ``prediction`` (reactant SMILES) is the fallback's one-hot; ValueError if RDKit cannot read it.
    ``target`` is left out of a set that names it (as in ``target >> reactants``).
    """
    from pxp_tui.tasks.drug import chem

    parts = chem.canonical_parts(prediction)
    if parts is None:
        raise ValueError(f"the prediction {prediction!r} is not valid SMILES")
    written = block(text)
    found, unread = _collect(_drug_entries(written, lambda body: chem.smiles_in(body, exclude=target))) if written else ({}, ())
    if k is not None:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        kept = sorted(found, key=lambda s: -found[s])[:k]
        found = {s: found[s] for s in found if s in kept}
    return _finish(found, unread, ".".join(parts))


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
