"""``query_one``, remembered: for a screen or widget whose parts are composed once and never replaced.

Textual's ``query_one`` walks the widget tree and matches a CSS selector at every node it passes.
The session screen and its panes asked it about fifty times between the expert's send and the
reply's frame, a tenth of that wait (issue 12); :meth:`KeptParts.part` asks once per part.
:meth:`KeptParts.show_text` updates a ``Static`` part only when its text or styles change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

from textual.content import Content

if TYPE_CHECKING:
    from textual.widget import Widget

W = TypeVar("W", bound="Widget")


class KeptParts:
    """A mixin for a Textual screen or widget: :meth:`part` is ``query_one``, found once and kept."""

    @overload
    def part(self, selector: type[W]) -> W: ...

    @overload
    def part(self, selector: str) -> Widget: ...

    @overload
    def part(self, selector: str, expect_type: type[W]) -> W: ...

    def part(self, selector: Any, expect_type: Any = None) -> Any:
        kept: dict[tuple[Any, Any], Any] = self.__dict__.setdefault("_kept_parts", {})
        found = kept.get((selector, expect_type))
        if found is None or found.parent is None:  # not found yet, or (never in these widgets) removed
            node: Any = self
            found = node.query_one(selector) if expect_type is None else node.query_one(selector, expect_type)
            kept[(selector, expect_type)] = found
        return found

    def show_text(self, selector: str, content: str | Content) -> None:
        """``content`` in the ``Static`` part ``selector``, unless it shows that already: an update re-renders
        the part and lays out the whole screen again, even for the same text (a turn repeats most of them)."""
        from textual.widgets import Static

        static = self.part(selector, Static)
        if not _same(static.content, content):
            static.update(content)


def _same(shown: object, content: str | Content) -> bool:
    """The same text with the same styles (``Content``'s own ``==`` compares the text only)."""
    if isinstance(shown, Content) and isinstance(content, Content):
        return shown.plain == content.plain and shown.spans == content.spans
    return type(shown) is type(content) and shown == content
