"""``visible``: what a terminal would act on is shown as an escape; ordinary text, in any script, is unchanged.

The characters a terminal acts on are defined here from Unicode's own data (``unicodedata``), not from the
module's list, so that the two are checked against each other.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pxp_harness.hostile import acted_on, leaks
from pxp_tui.common.visible import visible

#: what the papers' tasks and the world write: scripts, marks, joiners, emoji sequences, SMILES, markup
ORDINARY = [
    "CC(C)C(=O)Nc1ccc([N+](=O)[O-])c(C(F)(F)F)c1",  # a SMILES: brackets, parentheses, signs
    "F/C=C\\F and [C@@H](O)(N)C",  # backslashes and chirality
    "[bold]not bold[/bold] and [link=x]y[/link]",  # Rich markup: shown as written
    "**bold** _it_ `code` # heading | pipe",
    "Ателектаз нижней доли",  # Cyrillic
    "انخماص في الفص السفلي\u200f",  # Arabic, with a right-to-left mark
    "תמט באונה התחתונה",  # Hebrew
    "下叶肺不张 右肺",  # Chinese
    "無気肺 (むきはい)",  # Japanese
    "निचले लोब में एटेलेक्टैसिस क्\u200dष",  # Devanagari, with a zero-width joiner
    "ภาวะปอดแฟบ",  # Thai
    "👩\u200d👩\u200d👧 🇫🇷 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f 👍🏽 1️⃣ ❤️",  # emoji sequences
    "e\u0301 a\u0308 \ufeffbom \u00adsoft",  # combining marks, a BOM, a soft hyphen
]

HOSTILE = {
    "\x1b]0;PWNED\x07": "\\x1b]0;PWNED\\x07",  # OSC 0: the window title
    "\x1b]2;PWNED\x1b\\": "\\x1b]2;PWNED\\x1b\\",  # OSC 2, ended by ST
    "\x1b]52;c;cHduZWQ=\x07": "\\x1b]52;c;cHduZWQ=\\x07",  # OSC 52: the clipboard
    "\x1b[2J\x1b[H": "\\x1b[2J\\x1b[H",  # wipe the screen, cursor home
    "\x1b[5A\x1b[10;10H": "\\x1b[5A\\x1b[10;10H",  # cursor moves
    "safe\rEVIL": "safe\\rEVIL",  # overwrite the line
    "\u202eLIVE\u202c": "\\u202eLIVE\\u202c",  # a right-to-left override
    "\u2066x\u2069": "\\u2066x\\u2069",  # an isolate
    "\x9b2J": "\\x9b2J",  # C1 CSI
    "\x85next": "\\x85next",  # C1 NEL
    "a\x7fb\x08c\x00d": "a\\x7fb\\x08c\\x00d",  # DEL, backspace, NUL
    "line\u2028para\u2029": "line\\u2028para\\u2029",
    "\ud800": "\\ud800",  # a lone surrogate
}


@pytest.mark.parametrize(("text", "shown"), HOSTILE.items())
def test_every_escape_sequence_is_shown_as_text(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert visible(text, one_line=True) == shown
    assert not leaks(visible(text), one_line=True)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_of_every_script_is_unchanged(text: str) -> None:
    assert visible(text) == text
    assert visible(text, one_line=True) == text


def test_line_breaks_and_tabs() -> None:
    """Multi-line text keeps its lines (CRLF too) and its columns; one line escapes them."""
    report = "Findings:\r\n\tleft lower lobe\n\tno effusion"
    assert visible(report) == "Findings:\n        left lower lobe\n        no effusion"
    assert visible(report, one_line=True) == "Findings:\\r\\n\\tleft lower lobe\\n\\tno effusion"
    assert visible("a\tbc\tdef\n12345678\tx") == "a       bc      def\n12345678        x"
    assert visible("keep\rthis\r\n") == "keep\\rthis\n"  # a lone CR is no line break: it would overwrite


ordinary = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")).filter(lambda c: not acted_on(c))


@given(st.text())
@example("\x1b]0;PWNED\x07\r\n\t\u202e\x9b")
def test_nothing_a_terminal_acts_on_is_left(text: str) -> None:
    assert not leaks(visible(text))
    one = visible(text, one_line=True)
    assert not leaks(one, one_line=True)
    assert "\n" not in one and "\t" not in visible(text)


@given(st.text(st.characters(codec="utf-8")))
def test_the_result_can_always_be_written_to_a_terminal(text: str) -> None:
    visible(text).encode("utf-8")  # a lone surrogate would raise here


@given(st.text(ordinary))
@example("".join(ORDINARY))
def test_identity_on_ordinary_text(text: str) -> None:
    assert visible(text) == text
    assert visible(text, one_line=True) == text


@given(st.lists(st.text(ordinary), min_size=1))
def test_identity_on_ordinary_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert visible(text) == text


@given(st.text())
def test_made_visible_once_is_visible(text: str) -> None:
    assert visible(visible(text)) == visible(text)
    assert visible(visible(text, one_line=True), one_line=True) == visible(text, one_line=True)


_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[tnr])")


def undo(shown: str) -> str:
    def one(found: re.Match[str]) -> str:
        code = found.group(1)
        return {"t": "\t", "n": "\n", "r": "\r"}.get(code) or chr(int(code[1:], 16))

    return _ESCAPE.sub(one, shown)


@given(st.text().filter(lambda t: "\\" not in t))
def test_nothing_is_lost_on_one_line(text: str) -> None:
    """Every character is there, as itself or as its escape: reading the escapes back gives the text."""
    assert undo(visible(text, one_line=True)) == text
