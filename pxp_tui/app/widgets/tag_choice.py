"""The four tags the expert can send, with their meanings; ``1`` to ``4`` choose one."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import RadioButton, RadioSet

from pxp_tui.app.css import beside
from pxp_tui.app.tags import MEANINGS, tag_content
from pxp_tui.protocol import Tag

CHOICES: tuple[Tag, ...] = (Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT)


def _label(index: int, tag: Tag, note: str) -> Content:
    return Content.assemble(f"{index + 1} ", tag_content(tag), f"  {note}")


class TagChoice(RadioSet):
    """RATIFY, REFUTE, REVISE, REJECT; REJECT is disabled until the protocol allows it."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS = [
        # not in the footer: the choices show their keys themselves (and the help lists them)
        Binding(str(i + 1), f"choose({i})", tag.value, id=f"tag.{tag.value.lower()}", tooltip=MEANINGS[tag], show=False)
        for i, tag in enumerate(CHOICES)
    ]

    @dataclass
    class Refused(Message):
        """The expert chose a tag that cannot be sent now."""

        tag: Tag
        reason: str

    def __init__(self, *, id: str | None = None):
        buttons = [RadioButton(_label(i, tag, MEANINGS[tag]), id=f"choice-{tag.value.lower()}") for i, tag in enumerate(CHOICES)]
        super().__init__(*buttons, id=id)
        self.reject_reason = ""

    def _button(self, tag: Tag) -> RadioButton:
        return self.query_one(f"#choice-{tag.value.lower()}", RadioButton)

    @property
    def selected(self) -> Tag | None:
        for tag in CHOICES:
            if self._button(tag).value:
                return tag
        return None

    def select(self, tag: Tag | None) -> bool:
        """Choose ``tag`` (None clears the choice); False, and a :class:`Refused`, if it is unavailable."""
        if tag is None:
            for choice in CHOICES:
                self._unpress(self._button(choice))
            return True
        button = self._button(tag)
        if button.disabled:
            self.post_message(self.Refused(tag, self.reject_reason))
            return False
        button.value = True
        self._selected = CHOICES.index(tag)
        return True

    def allow_reject(self, allowed: bool, reason: str = "") -> None:
        """Enable REJECT, or disable it with ``reason`` shown in its place."""
        self.reject_reason = "" if allowed else f"REJECT is allowed {reason}"
        button = self._button(Tag.REJECT)
        if not allowed:
            self._unpress(button)
        button.disabled = not allowed
        button.label = _label(3, Tag.REJECT, MEANINGS[Tag.REJECT] if allowed else reason)

    def _unpress(self, button: RadioButton) -> None:
        """Release a button (a radio set otherwise keeps one pressed)."""
        with self.prevent(RadioButton.Changed):
            button.value = False
        if self._pressed_button is button:
            self._pressed_button = None

    def action_choose(self, index: int) -> None:
        self.select(CHOICES[index])
