"""A footer whose keys all show, whatever the terminal's width (80 columns included).

Textual's footer cuts what does not fit. This one, when the keys do not fit, shortens their
descriptions to their first word, then hides the command palette's key (ctrl+p works anyway, and
the help lists it), then shows the rightmost keys without a description (each keeps its description
as a tooltip; ``?`` lists them all).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


def _width(key: FooterKey) -> int:
    """Columns a compact key takes: the key, a space and the description, and the gap after it."""
    return len(key.key_display) + (1 + len(key.description) if key.description else 0) + 1


class FittingFooter(Footer):
    """``Footer(compact=True)`` that fits its width (see the module)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self._fitted_to = 0

    def compose(self) -> ComposeResult:
        yield from self.fit(list(super().compose()))

    def fit(self, items: list[Widget]) -> list[Widget]:
        """Fit the shown keys among ``items`` to the footer's width (descriptions as they are given)."""
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        palette = [item for item in items if isinstance(item, FooterKey) and item.has_class("-command-palette")]
        keys = [item for item in items if isinstance(item, FooterKey) and item.display and item not in palette]
        for item in palette:
            item.display = True
        beside = sum(map(_width, palette)) + 1  # the palette's key sits at the right, after a separator

        def room() -> int:
            return width - (beside if any(item.display for item in palette) else 0)

        if sum(map(_width, keys)) > room():
            for key in keys:
                if key.description and not key.tooltip:
                    key.tooltip = key.description
                key.description = key.description.split(" ")[0] if key.description else ""
        if sum(map(_width, keys)) > room():
            for item in palette:
                item.display = False
        for key in reversed(keys):
            if sum(map(_width, keys)) <= room():
                break
            key.description = ""
        return items

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._fitted_to:
            self.refresh(recompose=True)
