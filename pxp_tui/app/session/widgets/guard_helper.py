"""The guard helper: three questions whose answers give the tag by the protocol's decision table.

The answers are worked out from the texts (``pxp_tui.app.session.guards``): MATCH and Changed are shown, not
asked; AGREE is the offline checker's suggestion, which the expert may toggle (:class:`Overridden`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.message import Message
from textual.widgets import Checkbox, Collapsible, Static

from pxp_tui.app.shared.css import beside
from pxp_tui.app.shared.tags import tag_content
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

    @dataclass
    class Overridden(Message):
        """The expert toggled the answer to question ``name`` (only AGREE can be toggled)."""

        helper: GuardHelper
        name: str
        value: bool

    def __init__(self, *, id: str | None = None) -> None:
        # MATCH and Changed are facts about the texts: shown, not toggled
        boxes = [Checkbox(text, id=f"guard-{name}", disabled=name != "agree") for name, text in QUESTIONS.items()]
        super().__init__(*boxes, Static(id="guard-proposal"), title="Guard helper (g): propose a tag by the table", id=id)
        self.j, self.k = 2, 3
        self.overridden = False

    @property
    def in_use(self) -> bool:
        return not self.collapsed

    def prepare(self, j: int, k: int, match: bool, agree: bool, changed: bool, *, overridden: bool = False) -> None:
        """Show the answers worked out for message ``j`` (``overridden``: AGREE is the expert's own)."""
        self.j, self.k, self.overridden = j, k, overridden
        values = {"match": match, "agree": agree, "changed": changed}
        with self.prevent(Checkbox.Changed):
            for name, value in values.items():
                if self._box(name).value != value:
                    self._box(name).value = value
        self._propose()

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
        name = (event.checkbox.id or "").removeprefix("guard-")
        self.overridden = True
        self.post_message(self.Overridden(self, name, event.value))
        self._propose()

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        self._propose()

    def _propose(self) -> None:
        tag = self.proposal
        source = "yours" if self.overridden else "the offline checker's suggestion"
        self.query_one("#guard-proposal", Static).update(
            Content.assemble("The table gives ", tag_content(tag), ".", (f"  (agree: {source})", "$text-muted"))
        )
        if self.in_use:
            self.post_message(self.Proposed(self, tag))
