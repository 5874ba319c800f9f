"""The header every screen shows: Textual's, with an icon every terminal font has.

Textual's default icon, U+2B58 (a heavy circle), is missing from common terminal fonts (xterm's, DejaVu Sans
Mono): it showed as a missing-glyph box in the corner of every screen. U+2261 (identical to, three bars) is in
them, and reads as the menu it opens (a click on it opens the command palette).
"""

from __future__ import annotations

from textual.widgets import Header

#: the header's icon
ICON = "≡"


def header() -> Header:
    """A new header for a screen's ``compose``."""
    return Header(icon=ICON)
