"""How tags look: one colour per tag (theme variables), the papers' ``TAG_s`` notation, one-line meanings."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content

from pxp_tui.protocol import Sender, Tag

#: a colour per tag (theme variables where the theme has distinct ones)
TAG_COLOURS: dict[Tag, str] = {
    Tag.INIT: "$primary",
    Tag.RATIFY: "$success",
    Tag.REFUTE: "$warning",
    Tag.REVISE: "#c678dd",
    Tag.REJECT: "$error",
}

#: what each tag means when the expert sends it, in one line
MEANINGS: dict[Tag, str] = {
    Tag.RATIFY: "agree with prediction and explanation",
    Tag.REFUTE: "disagree; my answer stays as it was",
    Tag.REVISE: "send my changed answer",
    Tag.REJECT: "disagree with both; end the session",
}


def tag_content(tag: Tag, sender: Sender | None = None) -> Content:
    """``RATIFY`` (or the papers' ``RATIFY_h``) in the tag's colour."""
    text = tag.value if sender is None else f"{tag.value}_{sender.short}"
    return Content.styled(text, f"bold {TAG_COLOURS[tag]}")


def tags_content(tags: Iterable[tuple[Sender, Tag]]) -> Content:
    """A session's tags as ``INIT_m RATIFY_h RATIFY_m``, each in its colour."""
    parts = [tag_content(tag, sender) for sender, tag in tags]
    return Content(" ").join(parts) if parts else Content.styled("no messages yet", "dim")
