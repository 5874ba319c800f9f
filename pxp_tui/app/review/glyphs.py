"""Tags and intelligibility flags as short coloured glyphs, for lists and the replay."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from pxp_tui.app.shared.tags import tag_styles
from pxp_tui.protocol import Sender, SessionFlags, Tag

#: tag -> glyph (coloured as the session colours the tag: :func:`pxp_tui.app.shared.tags.tag_styles`)
TAGS: dict[Tag, str] = {
    Tag.INIT: "•",
    Tag.RATIFY: "✓",
    Tag.REFUTE: "✗",
    Tag.REVISE: "↻",
    Tag.REJECT: "⊘",
}

LEGEND = "  ".join(f"{glyph} {tag.value}" for tag, glyph in TAGS.items())


def tag_glyphs(tags: Sequence[tuple[Sender, Tag]]) -> Text:
    """A session's tags as glyphs; the human's are underlined (the machine speaks at odd j)."""
    text = Text()
    colours = tag_styles()
    for sender, tag in tags:
        style = colours[tag] + Style(underline=True) if sender is Sender.HUMAN else colours[tag]
        text.append(TAGS[tag], style=style)
        text.append(" ")
    text.rstrip()
    return text


def tag_label(tag: Tag) -> Text:
    return Text(f"{TAGS[tag]} {tag.value}", style=tag_styles()[tag])


def pair(human: bool, machine: bool) -> Text:
    """``h m`` for a class held by each agent, ``·`` where it does not."""
    text = Text()
    text.append("h" if human else "·", style="bold green" if human else "bright_black")
    text.append(" ")
    text.append("m" if machine else "·", style="bold green" if machine else "bright_black")
    return text


def flag_cells(flags: SessionFlags) -> tuple[Text, Text, Text, Text]:
    """(1-way, 2-way, strong, ultra-strong) cells of the session list."""
    two = Text("✓", style="bold green") if flags.two_way else Text("·", style="bright_black")
    return (
        pair(flags.one_way_human, flags.one_way_machine),
        two,
        pair(flags.strong_human, flags.strong_machine),
        pair(flags.ultra_strong_human, flags.ultra_strong_machine),
    )
