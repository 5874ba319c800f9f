"""Reading labelled sections ("Prediction: ...", "**Explanation:** ...") out of what LLMs actually write."""

from __future__ import annotations

import json
import re

from pxp_tui.common.replies import cut_off_thinking, trim_fences, without_thinking
from pxp_tui.engine import ParseError

_LEAD = re.compile(r"^[\s>#*_\-\d.)]*")
_EMPH = r"(?:\*\*|__|\*|_)?"
#: words a model may put before a label: "Final prediction:", "Proposed pathway:"
_QUALIFIER = r"(?:(?:final|my|the|proposed|suggested|predicted|overall|most\s+likely)\s+)?"
#: a closing line addressed to the reader, not part of the answer
_SIGN_OFF = re.compile(
    r"^\W*(?:let me know|please let me know|i hope (?:this|that) helps|hope (?:this|that) helps|feel free to"
    r"|if you have any (?:\w+\s+)?questions|if you (?:need|would like|want) (?:any\s+)?(?:further|more|additional|other)\s"
    r"|disclaimer\b|(?:note|please note)\W+(?:that\s+)?this (?:is not|is an ai|does not replace)\b"
    r"|please consult (?:a|your) |as an ai\b)",
    re.IGNORECASE,
)
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_WRAPPED = re.compile(r"^(\*\*|__|\*|_)([^*_].*?)\1$", re.S)


def _label_pattern(labels: list[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(
        rf"^{_EMPH}{_QUALIFIER}(?P<label>{names})(?:\s*\([^)]*\))?{_EMPH}\s*(?P<sep>[:：=\-–—]|$){_EMPH}\s*(?P<rest>.*)$",
        re.IGNORECASE,
    )


def strip_emphasis(text: str) -> str:
    """Text without markdown emphasis or code marks around it."""
    text = text.strip()
    text = re.sub(r"^(\*\*|__|`+)(.*?)\1$", r"\2", text, flags=re.S)
    return text.strip().strip("*_`").strip()


def _table_row(line: str) -> str:
    """A markdown table row ``| Prediction | Pneumonia |`` as ``Prediction: Pneumonia``; other lines as they are."""
    stripped = line.strip()
    if not (stripped.startswith("|") and stripped.count("|") >= 3):
        return line
    cells = [cell.strip() for cell in stripped.strip("|").split("|")]
    return f"{cells[0]}: {' | '.join(cells[1:])}" if len(cells) >= 2 and cells[0] else line


def _json_sections(text: str, owner: dict[str, str]) -> dict[str, str]:
    """The sections of a reply written as a JSON object (``{"prediction": ..., "explanation": ...}``)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return {}
    try:
        data = json.loads(text[start : end + 1])
    except ValueError:
        return {}
    found: dict[str, str] = {}
    for key, value in data.items() if isinstance(data, dict) else ():
        name = owner.get(str(key).strip().lower().replace("_", " "))
        if name and name not in found and value not in (None, ""):
            found[name] = "\n".join(map(str, value)) if isinstance(value, list) else str(value).strip()
    return found if "prediction" in found or "explanation" in found else {}


def _tidy(lines: list[str]) -> str:
    """A section's text: without the fences around it, a closing sign-off, or emphasis around all of it."""
    lines = trim_fences(lines)
    while lines:
        if _RULE.match(lines[-1]):
            lines = trim_fences(lines[:-1])
            continue
        blank = max((i for i, line in enumerate(lines) if not line.strip()), default=-1)
        if blank >= 0 and _SIGN_OFF.match(lines[blank + 1]):  # a closing paragraph
            lines = trim_fences(lines[:blank])
        elif _SIGN_OFF.match(lines[-1]):  # a closing line
            lines = trim_fences(lines[:-1])
        else:
            break
    text = "\n".join(lines).strip()
    wrapped = _WRAPPED.match(text)
    return wrapped.group(2).strip() if wrapped and wrapped.group(1) not in wrapped.group(2) else text


def sections(text: str, aliases: dict[str, list[str]]) -> dict[str, str]:
    """The text under each label, in any order, tolerating the ways models dress their answers.

    ``aliases`` maps a section name to the labels that introduce it, the main one first, e.g.
    ``{"prediction": ["prediction", "diagnosis"], "explanation": ["explanation", "findings"]}``. A
    label is a line that starts (after markdown marks, and words such as "Final") with the label and
    a colon, or is a heading/bold line holding only the label, or a table row ``| Label | text |``;
    a reply that is one JSON object is read by its keys. Thinking (``<think>...</think>``) and prose
    before the first label are ignored. Each section's text is verbatim, apart from the fences or
    emphasis around all of it and a closing sign-off ("Let me know if...", "I hope this helps") or
    disclaimer after it.

    A label seen again: the same label (a repeated answer) ends the section before it, and what
    follows is ignored until the next label (unless the section is still empty: "## Prediction"
    then "Prediction: ..."); the section's main label replaces what another of its
    labels introduced ("Reasoning: ..." then "Explanation: ..."); any other label (a report's own
    "Findings:" and "Impression:" inside its explanation) is part of the text it appears in.
    """
    owner = {label.lower(): name for name, labels in aliases.items() for label in labels}
    main = {labels[0].lower() for labels in aliases.values() if labels}
    text = without_thinking(text)
    from_json = _json_sections(text, owner)
    if from_json:
        return from_json
    pattern = _label_pattern(list(owner))
    found: dict[str, list[str]] = {}
    opened_by: dict[str, str] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        row = _table_row(line)
        body = _LEAD.sub("", row, count=1) if row.lstrip()[:1] in "#>*-_0123456789" else row.strip()
        hit = pattern.match(body.strip())
        if hit and (hit.group("sep") or row.lstrip().startswith(("#", "**", "__"))):
            label = hit.group("label").lower()
            name = owner[label]
            if name not in found or (label in main and opened_by[name] not in main):
                found[name], opened_by[name] = [], label
            elif label != opened_by[name]:
                if current is not None:
                    current.append(line)  # another label of the section: part of the text
                continue
            elif any(part.strip() for part in found[name]):
                current = None  # a repeat: ignore what follows until the next label
                continue
            current = found[name]  # new, or a heading's label said again on its first line
            rest = strip_emphasis(hit.group("rest"))
            if rest:
                current.append(rest)
            continue
        if current is not None:
            current.append(line)
    return {name: _tidy(lines) for name, lines in found.items()}


def missing(label: str, text: str) -> ParseError:
    """The error for a reply without ``label``: the model may have spent its tokens thinking."""
    if cut_off_thinking(text):
        return ParseError(f"the reply stops inside <think>, before any '{label}:' (allow more tokens with --max-tokens)")
    return ParseError(f"no '{label}:' in the reply")
