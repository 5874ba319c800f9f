"""The conversation pane: messages in order however many a session has, a new session empty, the newest in view."""

from __future__ import annotations

from textual.app import App, ComposeResult

from pxp_tui.app.widgets.conversation import Conversation
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, Tag


class Pane(App[None]):
    CSS = "Conversation { height: 12; }"

    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


def message(j: int) -> Message:
    sender = Sender.MACHINE if j % 2 else Sender.HUMAN
    return Message(1, j, sender, Tag.INIT if j == 1 else Tag.REFUTE, f"prediction {j}", f"explanation {j}")


async def test_a_session_longer_than_the_spares_keeps_every_message_in_order_and_the_newest_in_view() -> None:
    app = Pane()
    async with app.run_test(size=(60, 14)) as pilot:
        pane = app.query_one(Conversation)
        for j in range(1, Conversation.SPARE + 5):  # more than the entries mounted in advance
            pane.add(message(j))
            if j == 7:
                pane.note("a note between messages")
        await pilot.pause()
        shown = [str(entry.render()) for entry in pane.entries]
        assert len(shown) == Conversation.SPARE + 5
        assert [line.split()[0] for line in shown if not line.startswith("a note")] == [
            str(j) for j in range(1, Conversation.SPARE + 5)
        ]
        assert shown[7] == "a note between messages"
        assert pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y  # the newest message in view

        pane.clear()  # a new session
        await pilot.pause()
        assert pane.entries == []
        pane.add(message(1))
        await pilot.pause()
        assert [str(entry.render()).split()[0] for entry in pane.entries] == ["1"]
        assert pane.entries[0] is pane.children[0]  # shown first, above the spares
