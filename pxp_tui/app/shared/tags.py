"""How tags look: one colour per tag (theme variables), the papers' ``TAG_s`` notation, one-line meanings.

One palette for every screen: the session's widgets style tags with the ``$tag-*`` variables, and the
review's tables (Rich text) with the same variables' values, read from the running app's theme
(:func:`tag_styles`). The apps define the variables from their theme (``look.Look``); a theme can set
its own ``tag-revise`` (and the others) in its ``variables``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.style import Style
from textual.color import Color, ColorParseError
from textual.content import Content

from pxp_tui.protocol import Sender, Tag

#: the theme colour each tag takes (REVISE has none distinct in most themes: its own magenta)
TAG_SOURCES: dict[Tag, str] = {
    Tag.INIT: "primary",
    Tag.RATIFY: "success",
    Tag.REFUTE: "warning",
    Tag.REVISE: "#c678dd",
    Tag.REJECT: "error",
}
#: textual-dark's values, where no app (or theme) is there to ask
FALLBACK: dict[Tag, str] = {
    Tag.INIT: "#0178D4",
    Tag.RATIFY: "#4EBF71",
    Tag.REFUTE: "#FFA62B",
    Tag.REVISE: "#c678dd",
    Tag.REJECT: "#BA3C5B",
}


def variable(tag: Tag) -> str:
    """The theme variable of ``tag``'s colour (``tag-ratify``)."""
    return f"tag-{tag.value.lower()}"


#: a colour per tag, as the variables used in Textual styles
TAG_COLOURS: dict[Tag, str] = {tag: f"${variable(tag)}" for tag in Tag}


def tag_variables(theme: Mapping[str, str]) -> dict[str, str]:
    """The ``tag-*`` variables for a theme's variables (those it sets itself are kept)."""
    found = {}
    for tag, source in TAG_SOURCES.items():
        name = variable(tag)
        found[name] = theme.get(name) or (source if source.startswith("#") else theme.get(source, FALLBACK[tag]))
    return found


def tag_styles() -> dict[Tag, Style]:
    """The tags' colours as bold Rich styles (for Rich text), from the running app's theme."""
    from pxp_tui.app.shared.textual_internals import running_app

    app = running_app()
    variables = app.theme_variables if app is not None else {}  # no app running (a script's table): textual-dark's
    styles = {}
    for tag in Tag:
        try:
            colour = Color.parse(variables.get(variable(tag), FALLBACK[tag]))
        except ColorParseError:
            colour = Color.parse(FALLBACK[tag])
        styles[tag] = Style(color=colour.rich_color, bold=True)
    return styles


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
