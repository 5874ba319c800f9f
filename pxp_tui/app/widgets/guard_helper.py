"""The guard helper: three questions whose answers give the tag by the protocol's decision table."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.message import Message
from textual.widgets import Checkbox, Collapsible, Static

from pxp_tui.app.css import beside
from pxp_tui.app.tags import tag_content
from pxp_tui.protocol import Tag, decide_tag

QUESTIONS = {
    "match": "The machine's prediction matches mine",
    "agree": "The machine's explanation agrees with mine",
    "changed": "I changed my answer",
}


class GuardHelper(Collapsible):
    """MATCH(y', y''), AGREE(e', e'') and Changed, asked of the expert; proposes ``decide_tag``'s tag."""

    DEFAULT_CSS = beside(__file__)

    @dataclass
    class Proposed(Message):
        """The table's tag for the current answers (posted while the helper is open)."""

        helper: GuardHelper
        tag: Tag

    def __init__(self, *, id: str | None = None) -> None:
        boxes = [Checkbox(text, id=f"guard-{name}") for name, text in QUESTIONS.items()]
        super().__init__(*boxes, Static(id="guard-proposal"), title="Guard helper (g): propose a tag by the table", id=id)
        self.j, self.k = 2, 3

    @property
    def in_use(self) -> bool:
        return not self.collapsed

    def prepare(self, j: int, k: int, match: bool, agree: bool, changed: bool) -> None:
        """Set the answers as far as they can be worked out for message ``j``."""
        self.j, self.k = j, k
        with self.prevent(Checkbox.Changed):
            for name, value in (("match", match), ("agree", agree), ("changed", changed)):
                self._box(name).value = value
        self._propose()

    def set_changed(self, changed: bool) -> None:
        self._box("changed").value = changed

    def guards(self) -> dict[str, bool]:
        """The answers, as the blackboard's guard columns."""
        return {f"guard_{name}": self._box(name).value for name in QUESTIONS}

    @property
    def proposal(self) -> Tag:
        g = self.guards()
        return decide_tag(self.j, self.k, g["guard_match"], g["guard_agree"], g["guard_changed"])

    def _box(self, name: str) -> Checkbox:
        return self.query_one(f"#guard-{name}", Checkbox)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._propose()

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        self._propose()

    def _propose(self) -> None:
        tag = self.proposal
        self.query_one("#guard-proposal", Static).update(Content.assemble("The table gives ", tag_content(tag), "."))
        if self.in_use:
            self.post_message(self.Proposed(self, tag))
