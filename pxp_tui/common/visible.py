"""Text from a model, a dataset or a blackboard, made safe to show: every character a terminal would act on
is shown as a visible escape instead (``\\x1b``, ``\\r``, ``\\u202e``), never sent to the terminal.

A model's reply, a dataset's field or a note written by someone else may hold terminal escape sequences:
an OSC sequence renames the terminal's window, ``ESC[2J`` wipes the screen, a cursor move or a ``\\r``
paints over what is shown, OSC 52 writes the clipboard, a bidi override reverses what follows. Textual and
Rich pass such characters through to the terminal. :func:`visible` is applied wherever such text is shown
(the app's panes, titles, notifications and dialogs, the review, the command line's lines and tables, the
report's Markdown); what is stored is never changed.

Escaped (each character on its own, so a sequence cannot survive in parts):

- the C0 controls (``U+0000``-``U+001F``: ``ESC``, ``BEL``, ``\\r``, backspace...), ``DEL`` and the C1
  controls (``U+0080``-``U+009F``: ``\\x9b`` is a CSI on its own);
- the bidi embeddings, overrides and isolates (``U+202A``-``U+202E``, ``U+2066``-``U+2069``; the marks
  ``U+200E``, ``U+200F`` and ``U+061C`` stay: ordinary Arabic and Hebrew text uses them);
- the line and paragraph separators (``U+2028``, ``U+2029``) and lone surrogates (which no terminal can
  be sent).

Line breaks and tabs: in multi-line text (an explanation, a report) ``\\n`` and ``\\r\\n`` are line breaks and a
tab is spaces to the next multiple of 8; with ``one_line=True`` (a table cell, a title, a line of the command
line) they are escaped too, so one record stays one line. Everything else, any script and any emoji
(joiners, variation selectors and flags included), is returned unchanged, and so is any text already made
visible: ``visible(visible(t)) == visible(t)``.

A backslash is not escaped (SMILES use it), so the text ``\\x1b`` and an ``ESC`` look the same; the stored
text tells them apart.
"""

from __future__ import annotations

import re

#: characters a terminal may act on (see the module's text), ASCII and beyond; ``\n`` and ``\t`` are handled apart
_ASCII_UNSAFE = "\x00-\x08\x0b-\x1f\x7f"
_WIDE_UNSAFE = "\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
#: (multi-line, one line) for ASCII text (``str.isascii`` is known at once: most text takes the smaller pattern)
#: and for the rest
_ASCII = (re.compile(f"[{_ASCII_UNSAFE}]"), re.compile(f"[{_ASCII_UNSAFE}\t\n]"))
_ANY = (re.compile(f"[{_ASCII_UNSAFE}{_WIDE_UNSAFE}]"), re.compile(f"[{_ASCII_UNSAFE}{_WIDE_UNSAFE}\t\n]"))
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: tab stops of multi-line text, as terminals and Textual set them
TAB = 8


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every character a terminal would act on shown as a visible escape (see the module).

    With ``one_line``, line breaks and tabs are escaped too; otherwise ``\\n`` stays, ``\\r\\n`` becomes ``\\n``
    and tabs become spaces. Ordinary text, in any script, comes back unchanged.
    """
    if not one_line and "\r\n" in text:  # a line break written the Windows way (a CSV from Excel): a line break
        text = text.replace("\r\n", "\n")
    pattern = (_ASCII if text.isascii() else _ANY)[one_line]
    shown = pattern.sub(_escape, text)
    return shown.expandtabs(TAB) if not one_line and "\t" in shown else shown
