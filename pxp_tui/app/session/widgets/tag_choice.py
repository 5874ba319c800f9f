"""The four tags the expert can send, with their meanings; ``1`` to ``4`` (or enter on one) choose."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.tags import MEANINGS, tag_content
from pxp_tui.protocol import Tag

CHOICES: tuple[Tag, ...] = (Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT)


def _prompt(index: int, tag: Tag, note: str, chosen: bool) -> Content:
    mark = Content.styled("●", "bold $accent") if chosen else Content.styled("○", "$text-muted")
    return Content.assemble(mark, f" {index + 1} ", tag_content(tag), f"  {note}")


class TagChoice(OptionList):
    """RATIFY, REFUTE, REVISE, REJECT; REJECT is disabled, with the reason in its place, until allowed.

    The choice is plain state (:attr:`selected`), set at once by a key: nothing for a fast typist to
    overtake. ``ctrl+z`` or ``u`` goes back to the previous choice of this turn (nothing is sent until
    the expert sends).
    """

    DEFAULT_CSS = beside(__file__)
    keys_where = "tag list"  # where the help lists its keys
    BINDINGS = [
        # not in the footer: the choices show their keys themselves (and the help lists them)
        *(
            Binding(str(i + 1), f"choose({i})", tag.value, id=f"tag.{tag.value.lower()}", tooltip=MEANINGS[tag], show=False)
            for i, tag in enumerate(CHOICES)
        ),
        # not in the footer either (it has no room at 80x24): the help lists it
        Binding(
            "ctrl+z,u", "undo", "Undo tag", id="tag.undo", tooltip="Back to the previous tag choice (nothing is sent)", show=False
        ),
    ]

    @dataclass
    class Refused(Message):
        """The expert chose a tag that cannot be sent now."""

        tag: Tag
        reason: str

    @dataclass
    class Chosen(Message):
        """The expert chose ``tag`` (by its key, enter or a click; not the guard helper's proposal)."""

        tag: Tag

    def __init__(self, *, id: str | None = None) -> None:
        options = [Option(_prompt(i, tag, MEANINGS[tag], False), id=tag.value) for i, tag in enumerate(CHOICES)]
        super().__init__(*options, id=id)
        self.selected: Tag | None = None
        self.reject_reason = ""
        self._notes = dict(MEANINGS)
        self._drawn = {tag: (MEANINGS[tag], False) for tag in CHOICES}  # each prompt's (note, chosen) shown
        self._earlier: list[Tag | None] = []  # the choices this turn, before the current one

    def reset(self) -> None:
        """A new turn: no choice, nothing to undo."""
        self.select(None)
        self._earlier.clear()

    def select(self, tag: Tag | None) -> bool:
        """Choose ``tag`` (None clears the choice); False, and a :class:`Refused`, if it is unavailable."""
        if tag is not None and self.get_option(tag.value).disabled:
            self.post_message(self.Refused(tag, self.reject_reason))
            return False
        if tag is not self.selected:
            self._earlier.append(self.selected)
        self._set(tag)
        return True

    def _set(self, tag: Tag | None) -> None:
        self.selected = tag
        self.highlighted = None if tag is None else CHOICES.index(tag)  # the highlight is the choice
        self._redraw()

    def action_undo(self) -> None:
        """The previous tag choice of this turn, back (an undone choice is not sent, nor kept)."""
        if not self._earlier:
            self.notify("Nothing to undo: no earlier tag choice this turn.", severity="warning")
            return
        undone = self.selected
        self._set(self._earlier.pop())
        before = self.selected.value if self.selected else "no tag"
        self.notify(f"Undone: {undone.value if undone else 'no tag'} → {before}", timeout=3)

    def allow_reject(self, allowed: bool, reason: str = "") -> None:
        """Enable REJECT, or disable it with ``reason`` shown in its place."""
        self.reject_reason = "" if allowed else f"REJECT is allowed {reason}"
        self._notes[Tag.REJECT] = MEANINGS[Tag.REJECT] if allowed else reason
        if allowed == self.get_option(Tag.REJECT.value).disabled:  # each re-renders the list: only a change
            if allowed:
                self.enable_option(Tag.REJECT.value)
            else:
                self.disable_option(Tag.REJECT.value)
        if not allowed and self.selected is Tag.REJECT:
            self.selected = None
        self._redraw()

    def _redraw(self) -> None:
        """The prompts whose note or mark changed (each replacement re-renders the list): about once a turn."""
        for i, tag in enumerate(CHOICES):
            drawn = (self._notes[tag], tag is self.selected)
            if self._drawn[tag] != drawn:
                self.replace_option_prompt(tag.value, _prompt(i, tag, *drawn))
                self._drawn[tag] = drawn

    def action_choose(self, index: int) -> None:
        self.choose(CHOICES[index])

    def choose(self, tag: Tag) -> None:
        """The expert's own choice: selected, and announced with :class:`Chosen`."""
        if self.select(tag):
            self.post_message(self.Chosen(tag))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose(Tag(event.option.id))
