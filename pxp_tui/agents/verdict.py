"""Reading a checker's Yes or No out of what models actually write.

The rule, in short: a verdict is the word "Yes" or "No" where a verdict goes -- at the start of the
reply, after a verdict label, or as a sentence on its own -- never a "yes" or "no" inside prose. A
reply with exactly one verdict (said once or several times) is read as it; a reply with none, or
with both, is not read (the checker asks again).
"""

from __future__ import annotations

import re

from pxp_tui.common.replies import cut_off_thinking, without_fences, without_thinking

_WORD = r"(yes|no)\b"
#: a verdict word ends its clause ("No, ...", "Yes.", "No they are not"), unlike the "no" of "no contradictions"
_VERDICT = re.compile(_WORD + r"(?=\s*(?:$|[.,!;:)\]–—]|-\s)|\s+(?:they|both|these|this|it|there|the two)\b)", re.I)
#: both words as alternatives: "Yes or No", "Yes/No", "Yes and no"
_BOTH = re.compile(r"^" + _WORD + r"\W*?\s*(?:/|\bor\b|\band\b)\s*\W*" + _WORD, re.I)
#: a sentence that is only a verdict: "Yes.", "No!", "Consistent.", "Not consistent."
_BARE = re.compile(r"(yes|no|consistent|inconsistent|not consistent)[\s.!]*", re.I)
#: a verdict's label: "Answer:", "Judgement:", "Final verdict -", "Consistent (Yes/No):", "A:", a heading "Answer"
_LABEL = re.compile(
    r"^(?:(?:my|the|final|overall|short)\s+)*(?:answer|judge?ment|verdict|conclusion|decision|consisten(?:t|cy)|a)"
    r"\s*(?:\([^)]*\))?\s*(?:[:=]|[-–—]\s|$)\s*",
    re.I,
)
#: "... so my answer is Yes", anywhere
_SAYS = re.compile(r"\b(?:answer|verdict|judge?ment)\s+is\s*:?\s*" + _VERDICT.pattern, re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_MARKS = re.compile(r"^(?:\s*(?:[>#+-]|\d+[.)])\s*)*")


def _plain(line: str) -> str:
    """A line without markdown marks (quotes, headings, bullets, emphasis, code marks) or quotation marks."""
    line = re.sub(r"[*_`\"“”]", "", line)
    return _MARKS.sub("", line).strip().strip("'‘’").strip()


def _leading(text: str) -> set[bool]:
    """The verdict ``text`` starts with ("Yes, they are consistent." -> {True}); both for "Yes or No"."""
    text = text.lstrip(" \t([{'")
    both = _BOTH.match(text)
    if both:
        return {both.group(1).lower() == "yes", both.group(2).lower() == "yes"}
    found = _VERDICT.match(text)
    return {found.group(1).lower() == "yes"} if found else set()


def _bare(sentence: str) -> set[bool]:
    found = _BARE.fullmatch(sentence.strip())
    return {found.group(1).lower() in ("yes", "consistent")} if found else set()


def verdicts(text: str) -> set[bool]:
    """Every verdict a checker's reply gives: True for Yes, False for No.

    Read after any ``<think>`` block, without code fences, markdown marks or quotation marks:

    - the word the reply starts with: "Yes, they are consistent.", "No. The first ..." (the verdict
      word, not the prose's logic: "No, they are not inconsistent." is a No);
    - the word after a verdict label at the start of a sentence -- ``Answer:``, ``Judgement:`` or
      ``Judgment:``, ``Verdict:``, ``Consistent:``, ``Conclusion:``, ``Final answer:``, ``A:`` --
      or on the line after a heading of one (``## Answer``); "the answer is Yes" anywhere;
    - every sentence that is only a verdict: "Yes." on a line of its own after some reasoning, and
      "Consistent." / "Inconsistent." / "Not consistent.".

    A verdict word ends its clause: "No contradictions were found." gives no verdict.
    """
    lines = [_plain(line) for line in without_fences(without_thinking(text)).split("\n")]
    lines = [line for line in lines if line]
    found: set[bool] = set()
    for number, line in enumerate(lines):
        if number == 0:
            found |= _leading(line)
        found |= {said.group(1).lower() == "yes" for said in _SAYS.finditer(line)}
        for sentence in _SENTENCE_END.split(line):
            label = _LABEL.match(sentence)
            if label:
                value = sentence[label.end() :] or (lines[number + 1] if number + 1 < len(lines) else "")
                found |= _leading(value) or _bare(value) or _bare(sentence)
            else:
                found |= _bare(sentence)
    return found


def parse_answer(text: str) -> bool | None:
    """True for a clear Yes, False for a clear No, None if the reply gives neither, or both."""
    found = verdicts(text)
    return found.pop() if len(found) == 1 else None


def unclear(text: str) -> str:
    """Why a reply gives no verdict, for the message shown when the run pauses ('' if nothing to add)."""
    if len(verdicts(text)) > 1:
        return " (it said both)"
    if cut_off_thinking(text):
        return " (it was cut off while thinking: allow it more tokens with --checker-max-tokens)"
    return ""
