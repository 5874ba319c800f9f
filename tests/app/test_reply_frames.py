"""What the expert sees between their send and their next turn.

The answer pane shows that it waits for the machine; keys pressed meanwhile go to the screen (and say to
wait); escape never cancels the machine's call, its own key does after asking; at a session's outcome the next
session's proposal is drawn ahead, and the next turn opens focused in its first frame; a picture shown again
stays on screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown, type_answer, wait_for
from pxp_harness.internals import notifications, on_frames
from pxp_tui.app.picture.cache import CACHE, prediction_key
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.conversation import Conversation
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.app.session.widgets.tag_picker import TagPicker


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
    """No pictures, the offline machine at its own speed."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")


async def refute_typed(pilot: Any, app: Any) -> None:
    """REFUTE chosen at the expert's turn, with their own answer typed."""
    await pilot.press("2")
    await type_answer(pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine.")


@pytest.mark.slow
async def test_a_slow_reply_shows_the_wait_and_keys_meanwhile_say_to_wait(db_path: Path, monkeypatch, machine_gate) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        machine_gate.close()  # the machine takes its time: until the test has seen the wait
        await pilot.press("ctrl+s")
        picker = screen.query_one(TagPicker)
        assert picker.disabled and "waiting for the machine" in str(picker.query_one("#picker-head").render())
        assert screen.focused is None  # off the text field: what is typed now is not edited into the answer
        await pilot.press("1")  # a tag key while the machine answers: not kept, and said so
        assert any("Wait for your turn" in note for note in notifications(app))
        machine_gate.open()
        await expert_turn(pilot, app, j=4)
        assert screen.query_one(TagChoice).selected is None  # the early key chose nothing
        assert not picker.disabled


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
    assert CACHE.draws == draws  # nothing drawn after enter: both pictures were ready
    first = next(frame for frame in seen if frame["state"] is SessionState.HUMAN)
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


async def test_escape_never_cancels_the_machine_and_its_own_key_asks_first(db_path: Path, monkeypatch, machine_gate) -> None:
    """While the machine thinks: escape does nothing to it; ``ctrl+g`` asks, "no" keeps waiting, "yes" cancels (nothing
    pending written), and r continues."""
    from pxp_harness.app_helpers import messages
    from pxp_tui.app.shared.confirm import ConfirmScreen

    fast_machine(monkeypatch)
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await refute_typed(pilot, app)
        machine_gate.close()  # the machine does not answer before the keys
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: machine_gate.held, "the machine's call pending")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen  # not even a question
        assert screen.state is SessionState.MACHINE and screen.engine.is_running  # still waiting for the machine
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")  # keep waiting
        await wait_for(pilot, lambda: app.screen is screen, "the question answered")
        assert screen.state is SessionState.MACHINE and screen.engine.is_running
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.state is SessionState.STOPPED, "the cancellation")
        assert len(messages(db_path, run_id)) == 2  # the machine's first and the expert's: nothing of the call
        machine_gate.open()
        await pilot.press("r")
        await expert_turn(pilot, app, j=4)
