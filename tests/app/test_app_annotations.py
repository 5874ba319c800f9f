"""Skip, flag and note, as the expert meets them in the app: skip an instance (x), flag a session with a note (b), a note (n),
undo a tag choice (ctrl+z / u), the time per answer; and the same flags and notes in the review."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.app_helpers import expert_turn, live_app, messages, rows, run_done, session_screen, type_answer, wait_for
from pxp_harness.internals import notifications
from pxp_tui.app.review.review_app import ReviewApp
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.blackboard import Blackboard, notes, review
from pxp_tui.protocol import Tag


@pytest.fixture(autouse=True)
def _pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")


def sessions_text(app) -> str:
    return str(session_screen(app).query_one("#metrics-sessions").render())


@pytest.mark.slow
async def test_skipping_an_instance_asks_ends_the_session_without_a_message_and_goes_on(db_path: Path) -> None:
    async with live_app(db_path, limit=3) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question before skipping")
        assert "Skip session 1" in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("n")  # not skipped after all: still the expert's turn
        await pilot.pause()
        assert app.screen is screen and screen.state is SessionState.HUMAN and screen.exchange.order == 0
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question before skipping")
        await pilot.press("y")
        screen = await wait_for(
            pilot,
            lambda: (s := session_screen(app)).exchange.order == 1 and s.state is SessionState.HUMAN and s,
            "the next session",
        )
        assert "0 of 3 sessions done, 2 left, 1 skipped" in sessions_text(app)
        await pilot.press("1", "ctrl+s")  # the next sessions go on as usual
        await expert_turn(pilot, app, j=2)
        assert session_screen(app).exchange.order == 2
        assert "1 of 3 sessions done, 1 left, 1 skipped" in sessions_text(app)
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)  # past the last session's outcome

    recorded = messages(db_path, run_id)
    assert [(o, j, s) for o, j, s, _, _ in recorded if o == 0] == [(0, 1, "machine")]  # nothing of the expert's
    stops = rows(db_path, "SELECT stop_reason FROM data WHERE run_id = ? ORDER BY ord", (run_id,))
    assert [r["stop_reason"] for r in stops] == ["skipped", "ratified", "ratified"]
    assert rows(db_path, "SELECT sessions, two_way FROM run_intelligibility WHERE run_id = ?", (run_id,)) == [
        {"sessions": 2, "two_way": 2}
    ]


async def test_reopening_a_run_does_not_offer_a_skipped_instance_again(db_path: Path) -> None:
    async with live_app(db_path, limit=2) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question before skipping")
        await pilot.press("y")
        await wait_for(
            pilot, lambda: (s := session_screen(app)).exchange.order == 1 and s.state is SessionState.HUMAN, "session 2"
        )
    from pxp_tui.app.shell.pxp_app import PXPApp

    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        assert screen.exchange.order == 1  # the run continues where it was, not at the skipped instance
        assert "0 of 2 sessions done, 1 left, 1 skipped" in sessions_text(app)


async def test_flag_and_note_during_a_session_are_stored_and_nothing_is_sent(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("b")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note")
        assert app.screen.query_one("#note-flag").value is True  # b ticks "flagged for later"
        app.screen.query_one("#note-text").insert("ring closure looks odd")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
        session_id = screen.exchange.session_id
        with Blackboard.open(db_path, readonly=True) as board:
            assert notes.get(board, session_id) == notes.Annotation(session_id, True, "ring closure looks odd")
        assert "⚑ flagged" in screen.sub_title  # the session screen shows the flag
        await pilot.press("n")  # the note again, flag kept; unflag it and add a line
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note")
        assert app.screen.query_one("#note-text").text == "ring closure looks odd"
        await pilot.press("ctrl+b")
        app.screen.query_one("#note-text").insert("; fine after all")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
        assert screen.state is SessionState.HUMAN  # still the expert's turn: a note sends nothing
        assert "flagged" not in screen.sub_title
        await pilot.press("n")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note")
        await pilot.press("escape")  # cancelled: left as it was
        await wait_for(pilot, lambda: app.screen is screen, "the session again")
    assert [(j, s) for _, j, s, _, _ in messages(db_path, run_id)] == [(1, "machine")]
    stored = rows(db_path, "SELECT flagged, note FROM annotations WHERE session_id = ?", (session_id,))
    assert stored == [{"flagged": 0, "note": "ring closure looks odd; fine after all"}]


async def test_undo_goes_back_through_the_tag_choices_and_the_answer_is_timed(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        choice = screen.query_one(TagChoice)
        await pilot.press("2", "escape", "3", "escape")  # 2 and 3 take the focus to the prediction; escape: the tags again
        assert choice.selected is Tag.REVISE
        await pilot.press("u")
        assert choice.selected is Tag.REFUTE
        assert "●" in str(choice.get_option(Tag.REFUTE.value).prompt) and "●" not in str(
            choice.get_option(Tag.REVISE.value).prompt
        )
        await pilot.press("ctrl+z")
        assert choice.selected is None
        await pilot.press("ctrl+z")  # nothing earlier: it says so, and nothing changes
        assert choice.selected is None
        assert any("Nothing to undo" in note for note in notifications(app))
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)
    assert [(j, t) for _, j, _, t, _ in messages(db_path, run_id)] == [(1, "INIT"), (2, "RATIFY"), (3, "RATIFY")]
    timed = rows(db_path, "SELECT j, answer_ms FROM messages ORDER BY j")
    assert timed[0]["answer_ms"] is None and timed[2]["answer_ms"] is None  # the machine's: not the expert's time
    assert timed[1]["answer_ms"] > 0


@pytest.mark.slow
async def test_undo_is_per_turn(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await type_answer(pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine.")
        screen.query_one(TagChoice).focus()
        await pilot.press("ctrl+s")
        screen = await expert_turn(pilot, app, j=4)
        choice = screen.query_one(TagChoice)
        assert choice.selected is None
        await pilot.press("u")  # the previous turn's REFUTE was sent: it is not a choice to undo
        assert choice.selected is None


@pytest.mark.slow
async def test_the_review_lists_skipped_and_flagged_sessions_and_writes_notes(db_path: Path) -> None:
    async with live_app(db_path, limit=2) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question before skipping")
        await pilot.press("y")
        await wait_for(
            pilot, lambda: (s := session_screen(app)).exchange.order == 1 and s.state is SessionState.HUMAN, "session 2"
        )
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)  # past the last session's outcome

    review_app = ReviewApp(db_path)
    async with review_app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: type(review_app.screen).__name__ == "ReviewScreen" and review_app.screen.runs, "the runs")
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(review_app.screen).__name__ == "SessionsScreen", "the sessions")
        screen = review_app.screen
        await wait_for(pilot, lambda: screen.page is not None and screen.page.total == 2, "the session list")
        assert "1/2 finished, 1 skipped" in str(screen.query_one("#sessions-title").render())
        table = screen.query_one("#sessions-table")
        assert str(table.get_row_at(0)[8]) == "skipped"
        await pilot.press("b")  # flag the skipped one, with a note
        await wait_for(pilot, lambda: type(review_app.screen).__name__ == "NoteScreen", "the note")
        review_app.screen.query_one("#note-text").insert("skipped: image too dark")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: str(table.get_row_at(0)[9]) == "⚑ skipped: image too dark", "the note in the list")
        screen.query_one("#filter-class").value = "flagged"
        await wait_for(pilot, lambda: screen.page.total == 1 and screen.query_state.kind == "flagged", "the flagged filter")
        assert table.row_count == 1
        await pilot.press("enter")  # the replay shows the flag and the note
        await wait_for(pilot, lambda: type(review_app.screen).__name__ == "ReplayScreen", "the replay")
        note = await wait_for(pilot, lambda: (n := review_app.screen.query_one("#replay-note")).display and n, "the note")
        assert str(note.render()) == "⚑ flagged for later: skipped: image too dark"
    with Blackboard.open(db_path, readonly=True) as board:
        (row,) = review.sessions(board, run_id, review.Query(kind="flagged")).rows
        assert (row.order, row.stop_reason, row.note) == (0, "skipped", "skipped: image too dark")


async def test_a_flagged_session_shows_its_flag_when_the_run_is_reopened(db_path: Path) -> None:
    from pxp_tui.app.shell.pxp_app import PXPApp

    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("b")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen and "⚑ flagged" in screen.sub_title, "the flag shown")
    again = PXPApp(db_path, run_id=run_id)
    async with again.run_test(size=(80, 24)) as pilot:
        screen = await expert_turn(pilot, again, j=2)
        await wait_for(pilot, lambda: "⚑ flagged" in screen.sub_title, "the flag shown after the resume")
