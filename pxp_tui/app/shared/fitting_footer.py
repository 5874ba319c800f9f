"""A footer whose keys all show, whatever the terminal's width (80 columns included).

Textual's footer cuts what does not fit. This one, when the keys do not fit, shortens their
descriptions to their first word, then hides the command palette's key (ctrl+p works anyway, and
the help lists it), then hides the screen's rightmost keys, keeping the app's (``?`` for the keys, ``q``): every
key shown says what it does, and ``?`` lists them all, the hidden ones included (they work as ever).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer

from pxp_tui.app.shared.textual_internals import FooterKey


def _width(key: FooterKey, description: str) -> int:
    """Columns a compact key takes with ``description``: the key, a space and it, and the gap after it."""
    return len(key.key_display) + (1 + len(description) if description else 0) + 1


#: the class of a key the footer hides for want of room (``?`` lists it, and it works)
NO_ROOM = "-no-room"


class FittingFooter(Footer):
    """``Footer(compact=True)`` that fits its width (see the module)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self._fitted_to = 0

    def compose(self) -> ComposeResult:
        yield from self.fit(list(super().compose()))

    def fit(self, items: list[Widget], full: dict[FooterKey, str] | None = None) -> list[Widget]:
        """Fit the shown keys among ``items`` to the footer's width.

        ``full`` gives a key's whole description where it may have been shortened before (default: the
        key's own). The fitting is worked out first and only what changes is set: a key's display that
        flips back and forth costs the screen a layout.
        """
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        for item in items:  # a new key's own watcher adds -compact once mounted: a restyle of it for nothing
            if isinstance(item, FooterKey) and self.compact:
                item.add_class("-compact", update=False)
        for item in items:
            if isinstance(item, FooterKey) and item.has_class(NO_ROOM):  # shown again if it fits now
                item.remove_class(NO_ROOM, update=False)
                item.display = True
        palette = [item for item in items if isinstance(item, FooterKey) and item.has_class("-command-palette")]
        keys = [item for item in items if isinstance(item, FooterKey) and item.display and item not in palette]
        wanted = {key: (full or {}).get(key, key.description) for key in keys}
        beside = sum(_width(item, item.description) for item in palette) + 1  # at the right, after a separator
        room = width - (beside if palette else 0)

        def total() -> int:
            return sum(_width(key, wanted[key]) for key in keys)

        if total() > room:
            for key in keys:
                if wanted[key] and not key.tooltip:
                    key.tooltip = wanted[key]
                wanted[key] = wanted[key].split(" ")[0] if wanted[key] else ""
        palette_shown = total() <= room
        if not palette_shown:
            room = width
        apps = self._apps_keys(keys)
        for key in reversed([key for key in keys if key not in apps]):
            if total() <= room:
                break
            keys.remove(key)  # hidden: a key without its word says nothing
            key.add_class(NO_ROOM, update=False)
            key.display = False
        for item in palette:
            if item.display != palette_shown:
                item.display = palette_shown
        for key, description in wanted.items():
            if key.description != description:
                key.description = description
        return items

    def _apps_keys(self, keys: list[FooterKey]) -> set[FooterKey]:
        """The keys among ``keys`` that are the app's own (the keys' list, quit): kept to the last."""
        try:
            active = self.screen.active_bindings
        except Exception:  # noqa: BLE001 - not mounted on a screen yet: none known
            return set()
        return {key for key in keys if (found := active.get(key.key)) is not None and found.node is self.app}

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._fitted_to:
            self.refresh(recompose=True)
