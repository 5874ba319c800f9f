"""The conversation pane: messages in order however many a session has, a new session empty, the newest in view."""

from __future__ import annotations

from textual.app import App, ComposeResult

from pxp_tui.app.session.widgets.conversation import Conversation
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


async def test_a_slot_that_held_a_note_shows_the_next_sessions_message_as_a_message() -> None:
    """Entries are reused with the classes they had: a slot a note took shows a message styled as one."""
    app = Pane()
    async with app.run_test(size=(60, 30)) as pilot:
        pane = app.query_one(Conversation)
        for j in (1, 2, 3):
            pane.add(message(j))
        pane.note("session 1 ended: ratified")  # the fourth slot, a human message's in a longer session
        pane.clear()
        for j in (1, 2, 3, 4):
            pane.add(message(j))
        await pilot.pause()
        classes = [sorted(entry.classes) for entry in pane.entries]
        assert classes == [["-machine", "entry"], ["-human", "entry"], ["-machine", "entry"], ["-human", "entry"]]
        assert pane.entries[1].content_region.x > pane.entries[0].content_region.x  # the expert's indented
