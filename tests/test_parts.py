"""``KeptParts.part``: ``query_one`` found once and kept, found again if the part was replaced."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from pxp_tui.app.shared.parts import KeptParts


class Pane(KeptParts, Vertical):
    def compose(self) -> ComposeResult:
        yield Static("first", id="text")


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Pane()


async def test_a_part_is_the_widget_query_one_finds_and_a_replaced_one_is_found_again() -> None:
    app = One()
    async with app.run_test() as pilot:
        pane = app.query_one(Pane)
        text = pane.part("#text", Static)
        assert text is pane.query_one("#text") and pane.part("#text", Static) is text
        assert pane.part(Static) is text
        await text.remove()
        await pane.mount(Static("second", id="text"))
        await pilot.pause()
        again = pane.part("#text", Static)
        assert again is not text and str(again.render()) == "second"


async def test_show_text_updates_a_part_only_when_its_text_or_styles_change(monkeypatch) -> None:
    from textual.content import Content

    app = One()
    async with app.run_test() as pilot:
        pane = app.query_one(Pane)
        text = pane.part("#text", Static)
        updates: list[object] = []
        update = text.update
        monkeypatch.setattr(text, "update", lambda content: updates.append(content) or update(content))
        pane.show_text("#text", "first")  # what it shows: not updated (an update re-renders and lays out)
        pane.show_text("#text", Content.styled("first", "bold"))  # same text, other styles: updated
        pane.show_text("#text", Content.styled("first", "bold"))
        pane.show_text("#text", Content.styled("first", "italic"))
        pane.show_text("#text", "second")
        await pilot.pause()
        assert [Content(c).plain if isinstance(c, str) else c.plain for c in updates] == ["first", "first", "second"]
        assert str(text.render()) == "second"
