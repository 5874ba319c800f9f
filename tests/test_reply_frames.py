"""Issue 12: what the expert sees between their send and their next turn, frame by frame.

A fast machine's reply arrives with the expert's own message in one frame, the answer pane never greyed
out in between; a slow one shows the wait after a moment; keys pressed meanwhile go to the screen (and
say to wait); at a session's outcome the next session's proposal is drawn ahead, and the next turn opens
focused in its first frame. Frames are counted (the screen's paints), never timed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pxp_tui.app.picture.cache import CACHE, prediction_key
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.session import reply_wait
from pxp_tui.app.session.widgets.conversation import Conversation
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.app.session.widgets.tag_picker import TagPicker

from .app_helpers import expert_turn, live_app, outcome_shown, settled, type_answer, wait_for
from .internals import notifications, on_frames, screen_lines
from .waiting import async_poll


def on_paint(screen: Any, record: Any, *, from_send: bool = True) -> None:
    """Call ``record()`` at each paint of ``screen`` from the expert's next send on (or from now), before
    (``record(before=True)``) or after the frame is rendered. (A frame still due from before the send, such
    as the footer's keys a frame after a focus change, is not one of them.)"""
    submit = screen._submit
    sent = not from_send

    def send(answer: Any) -> None:
        nonlocal sent
        sent = True
        submit(answer)

    def paint(real: Any) -> None:
        if sent:
            record(before=True)
        real()
        if sent:
            record(before=False)

    on_frames(screen, paint)
    screen._submit = send


def paints(screen: Any, *, from_send: bool = True) -> list[dict[str, Any]]:
    """What each paint of ``screen`` showed from the expert's next send on (or from now): the conversation's
    entries, the answer pane's state."""
    seen: list[dict[str, Any]] = []

    def record(before: bool) -> None:
        if before:
            picker = screen.query_one(TagPicker)
            entries = len(screen.query_one(Conversation).entries)
            seen.append({"entries": entries, "disabled": picker.disabled, "state": screen.state, "focused": screen.focused})

    on_paint(screen, record, from_send=from_send)
    return seen


def fast_machine(monkeypatch: Any) -> None:
    """No pictures, the offline machine at its own speed, a reply that counts as fast however slow this machine is."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    monkeypatch.setattr(reply_wait, "DEADLINE", 30.0)


async def refute_typed(pilot: Any, app: Any) -> None:
    """REFUTE chosen at the expert's turn, with their own answer typed."""
    await pilot.press("2")
    await type_answer(pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine.")


async def test_a_fast_reply_shows_with_the_experts_message_in_one_frame(db_path: Path, monkeypatch) -> None:
    fast_machine(monkeypatch)
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        before = len(screen.query_one(Conversation).entries)
        seen = paints(screen)
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=4)
        await pilot.pause()
    assert seen, "the screen was painted after the send"
    first = seen[0]
    # the first frame after the send has both messages, and the expert's turn open on the tag list
    assert first["entries"] == before + 2 and first["state"] == "human"
    assert isinstance(first["focused"], TagChoice)
    assert not any(frame["disabled"] for frame in seen)  # the answer pane never greyed out for a fast reply


@pytest.mark.slow
async def test_a_slow_reply_shows_the_wait_and_keys_meanwhile_say_to_wait(db_path: Path, monkeypatch, machine_gate) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        picker = screen.query_one(TagPicker)
        at_deadline: list[tuple[bool, bool, Any]] = []  # the answer as the send's hold ends, before the wait shows
        show_wait = screen.reply_wait.on_slow

        def deadline() -> None:
            at_deadline.append((picker.locked, picker.disabled, screen.focused))
            show_wait()

        screen.reply_wait.on_slow = deadline
        machine_gate.close()  # the machine takes its time: until the test has seen the wait
        await pilot.press("ctrl+s")
        await pilot.press("1")  # a tag key while the machine answers: not kept, and said so
        assert any("Wait for your turn" in note for note in notifications(app))
        await wait_for(pilot, lambda: picker.disabled, "the wait shown")
        # held until then: locked, nothing repainted, and off the text field (what is typed is not edited into it)
        assert at_deadline == [(True, False, None)]
        assert "waiting for the machine" in str(picker.query_one("#picker-head").render())
        machine_gate.open()
        await expert_turn(pilot, app, j=4)
        assert screen.query_one(TagChoice).selected is None  # the early key chose nothing
        assert not picker.disabled and not picker.locked


@pytest.mark.slow
async def test_the_next_proposal_is_drawn_while_the_outcome_is_read(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    CACHE.clear()
    async with live_app(db_path, limit=2) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        proposal = screen.query_one("#prediction-picture", Picture)
        await wait_for(pilot, lambda: proposal.surface is not None, "the first proposal drawn")
        await pilot.press("1", "ctrl+s")  # RATIFY: the session ends
        await outcome_shown(pilot, app)

        def next_proposal() -> Any:  # the engine went on meanwhile: the next session's first message, held
            started = [e for e in screen.held if type(e).__name__ == "SessionStarted"]
            machine = [e.message for e in screen.held if type(e).__name__ == "MessageRecorded"]
            return (started[-1].instance, machine[-1].prediction) if started and machine else None

        instance, prediction = await wait_for(pilot, next_proposal, "the next session's first message")
        key = prediction_key(screen.pxp_task, instance, prediction)
        await wait_for(pilot, lambda: CACHE.lookup(key, proposal.surface)[0], "the next proposal drawn ahead")
        draws = CACHE.draws
        seen = paints(screen, from_send=False)
        await pilot.press("enter")
        await expert_turn(pilot, app, j=2)
        await pilot.pause()
    assert CACHE.draws == draws  # nothing drawn after n: both pictures were ready
    first = next(frame for frame in seen if frame["state"] == "human")
    assert isinstance(first["focused"], TagChoice)  # focused in the first frame of the turn, not a frame later


class OnePicture(App[None]):
    """A picture alone, as the session's panes hold one."""

    def compose(self) -> ComposeResult:
        yield Picture(id="pic")


async def test_showing_the_same_picture_again_keeps_it_on_screen() -> None:
    drawn: list[Any] = []

    def draw(surface: Any) -> Any:
        from PIL import Image

        drawn.append(surface)
        return Image.new("RGB", (20, 10), "white")

    CACHE.clear()
    app = OnePicture()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = app.query_one(Picture)
        picture.show(draw, caption="proposed", key=("test", "same"))
        await wait_for(pilot, lambda: picture.query(".picture-image"), "the picture shown")
        shown = picture.query_one(".picture-image")
        picture.show(draw, caption="the machine's proposal", key=("test", "same"))  # e.g. the same proposal again
        await pilot.pause()
        assert picture.query_one(".picture-image") is shown  # not removed and mounted again (a flicker, a frame)
        assert "the machine's proposal" in str(picture.query_one(".picture-caption").render())
        picture.show(draw, key=("test", "other"))  # another picture: drawn
        await wait_for(pilot, lambda: len(drawn) == 2, "the other picture drawn")
    assert len(drawn) == 2


async def test_the_next_half_cell_picture_takes_the_place_of_the_one_on_screen(monkeypatch) -> None:
    """The next instance's picture, in half-cell blocks: the widget on the screen shows its lines (a new widget
    would be styled and mounted in the next turn's first frame); one of other cells is laid out anew."""
    from PIL import Image

    from pxp_tui.app.picture.halfcell import HalfcellView

    monkeypatch.setenv("PXP_IMAGES", "halfcell")

    def solid(colour: str, size: tuple[int, int] = (20, 10)) -> Any:
        return lambda surface: Image.new("RGB", size, colour)

    CACHE.clear()
    app = OnePicture()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = app.query_one(Picture)
        picture.show(solid("white"), key=("test", "white"))
        await wait_for(pilot, lambda: picture.query(HalfcellView), "the first picture shown")
        shown = picture.query_one(HalfcellView)
        first = shown.render_line(0)
        picture.show(solid("black"), key=("test", "black"))
        await wait_for(pilot, lambda: shown.render_line(0) != first, "the next picture shown")
        assert picture.query_one(HalfcellView) is shown and len(picture.query(".picture-image")) == 1
        cells = shown.picture.cells
        picture.show(solid("red", (10, 10)), key=("test", "square"))  # other cells: the frame fits it anew
        await wait_for(pilot, lambda: shown.picture.cells != cells, "the square picture shown")
        await pilot.pause()
        assert shown.size.width == shown.picture.cells[0]


async def test_escape_right_after_a_send_cancels_the_machines_call(db_path: Path, monkeypatch, machine_gate) -> None:
    """Within the send's hold (the answer locked, not yet disabled) escape still reaches the screen."""
    fast_machine(monkeypatch)
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        machine_gate.close()  # the machine does not answer before the escape
        await pilot.press("ctrl+s")
        assert screen.query_one(TagPicker).locked
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.state == "stopped", "the cancellation")


class Held(App[None]):
    """A screen whose hold ends while a widget it mounted is still mounting (as under load)."""

    def compose(self) -> ComposeResult:
        yield Static("before", id="text")

    def change_in_a_hold(self) -> reply_wait.ReplyWait:
        wait = reply_wait.ReplyWait(self.screen, lambda: None, deadline=30.0)
        wait.begin()
        self.query_one("#text", Static).update("after")
        self.screen.mount(Static("mounted"))  # not mounted yet when the hold ends: it waits on a timer
        wait.end()
        return wait


async def test_a_hold_that_ends_on_a_timer_still_paints_what_changed() -> None:
    """Under load the end of a hold waits for mounts on a timer; the screen must still be painted then.

    (A timer's callback runs outside the screen's messages, so nothing else told it to paint: the expert
    pressed n after an outcome and saw nothing change until the next key.)"""
    app = Held()
    async with app.run_test() as pilot:
        await pilot.pause()
        seen: list[str] = []

        def paint(real: Any) -> None:
            seen.append(str(app.query_one("#text", Static).render()))
            real()

        on_frames(app.screen, paint)
        wait = app.change_in_a_hold()
        await async_poll(lambda: not wait.active, "the hold's end")
        await async_poll(lambda: "after" in seen, "a paint after the hold, with what changed in it")


def painted_text(screen: Any) -> list[str]:
    """The text of each frame of ``screen`` painted from the expert's next send on, as the terminal gets
    it: rendered from what each widget has painted, so a change the screen has not yet laid out and
    rendered is not in it."""
    seen: list[str] = []

    def record(before: bool) -> None:
        if not before:
            seen.append("\n".join(screen_lines(screen)))

    on_paint(screen, record)
    return seen


async def test_the_reply_and_the_turn_are_painted_whole_in_the_first_frame(db_path: Path, monkeypatch) -> None:
    """REFUTE, a fast machine: the first frame after the send has the machine's reply in its pane (not only
    in the conversation, the pane a frame later) and the expert's turn open; the metrics follow."""
    fast_machine(monkeypatch)
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        seen = painted_text(screen)
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=4)
        reply = screen.exchange.messages[2]
        tags = f"This session: INIT_m REFUTE_h {reply.tag.value}_m"
        await async_poll(lambda: any(tags in frame for frame in seen), "the metrics' tags painted")
    assert seen, "the screen was painted after the send"
    first = seen[0]
    assert "message 3" in first  # the machine pane's head: its tag and "message 3"
    assert reply.explanation.split()[0] in first.split("Machine", 1)[1]
    assert "REFUTE_h" not in first  # the metrics' tags of the session come a frame later...
    assert any(tags in frame for frame in seen[1:])  # ...and do come, without a key


@pytest.mark.parametrize("at", [2, 4])
async def test_the_outcome_comes_first_and_the_metrics_follow_without_a_key(db_path: Path, monkeypatch, at: int) -> None:
    """RATIFY ends the session: its first frame shows the outcome; the metrics (sessions done, the table)
    are updated in a frame after it, by themselves. At message 4 (after a reply) Textual ran them before
    the outcome's frame, which then carried them and the footer's keys too."""
    fast_machine(monkeypatch)
    async with live_app(db_path, limit=2) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        if at == 4:  # REFUTE with the proposal's own answer: the machine ratifies it at 3
            await pilot.press("2")
            await settled(pilot)
            await pilot.press("ctrl+s")
            await expert_turn(pilot, app, j=4)
            await settled(pilot)
        await pilot.press("1")
        await settled(pilot)  # nothing of before the send left to paint
        seen = painted_text(screen)
        await pilot.press("ctrl+s")
        await outcome_shown(pilot, app)
        await async_poll(lambda: any("1 of 2 sessions done" in frame for frame in seen), "the metrics painted")
    first = seen[0]
    assert "Session 1 of 2: Ratified by both at message" in first
    assert "0 of 2 sessions done" in first
    assert any("1 of 2 sessions done" in frame for frame in seen[1:]), "the metrics never followed"
    later = next(frame for frame in seen if "1 of 2 sessions done" in frame)
    assert "session 1 ended: ratified" in later.lower()  # the conversation's note of the end, with them


async def test_a_turn_redraws_only_what_changed_in_the_answer(db_path: Path, monkeypatch) -> None:
    """REFUTE sent with the proposal's text as it came: at the next turn the explanation field (same text,
    cursor where it was) is not rendered again, and the tag list replaces only the prompts that changed (the
    sent tag's mark, REJECT's note), not all four twice."""
    from pxp_tui.app.session.widgets.answer_fields import ExplanationArea

    fast_machine(monkeypatch)
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await pilot.pause()
        area, choice = screen.query_one(ExplanationArea), screen.query_one(TagChoice)
        rendered: list[Any] = []
        replaced: list[str] = []
        render_line, replace = area.render_line, choice.replace_option_prompt  # lines not in Textual's cache
        monkeypatch.setattr(area, "render_line", lambda y: rendered.append(y) or render_line(y))
        monkeypatch.setattr(choice, "replace_option_prompt", lambda i, p: replaced.append(i) or replace(i, p))
        text = area.text
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=4)
        await pilot.pause()
        assert area.text == text and choice.selected is None
    assert rendered == []
    assert 1 <= len(replaced) <= 2, replaced
