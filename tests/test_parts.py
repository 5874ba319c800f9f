"""``KeptParts.part``: ``query_one`` found once and kept, found again if the part was replaced."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from pxp_tui.app.parts import KeptParts


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
