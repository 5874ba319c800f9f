"""Reading labelled sections ("Prediction: ...", "**Explanation:** ...") out of what LLMs actually write."""

from __future__ import annotations

import re

_LEAD = re.compile(r"^[\s>#*_\-\d.)]*")
_EMPH = r"(?:\*\*|__|\*|_)?"


def _label_pattern(labels: list[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(
        rf"^{_EMPH}(?P<label>{names}){_EMPH}\s*(?P<sep>[:：=\-–—]|$){_EMPH}\s*(?P<rest>.*)$",
        re.IGNORECASE,
    )


def strip_emphasis(text: str) -> str:
    """Text without markdown emphasis or code marks around it."""
    text = text.strip()
    text = re.sub(r"^(\*\*|__|`+)(.*?)\1$", r"\2", text, flags=re.S)
    return text.strip().strip("*_`").strip()


def sections(text: str, aliases: dict[str, list[str]]) -> dict[str, str]:
    """The text under each label, in any order, tolerating markdown headings, bullets and emphasis.

    ``aliases`` maps a section name to the labels that introduce it, e.g.
    ``{"prediction": ["prediction", "pathway"], "explanation": ["explanation"]}``. A label is a line
    that starts (after markdown marks) with the label and a colon, or is a heading/bold line holding
    only the label. Prose before the first label is ignored; a repeated section keeps its first.
    """
    owner = {label.lower(): name for name, labels in aliases.items() for label in labels}
    pattern = _label_pattern(list(owner))
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.replace("\r\n", "\n").split("\n"):
        body = _LEAD.sub("", line, count=1) if line.lstrip()[:1] in "#>*-_0123456789" else line.strip()
        hit = pattern.match(body.strip())
        if hit and (hit.group("sep") or line.lstrip().startswith(("#", "**", "__"))):
            name = owner[hit.group("label").lower()]
            if name in found:
                current = None  # a repeat: ignore what follows until the next label
                continue
            current = found.setdefault(name, [])
            rest = strip_emphasis(hit.group("rest"))
            if rest:
                current.append(rest)
            continue
        if current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in found.items()}
