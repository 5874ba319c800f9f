"""The expert's unsent answer is kept as a draft (never a message) and put back when the run is reopened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from pxp_harness.app_helpers import expert_turn, live_app, make_run, messages, rows, run_done, type_answer, wait_for
from pxp_harness.boards import unpacked
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.blackboard import Blackboard, drafts, schema
from pxp_tui.blackboard.drafts import Draft


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def draft_rows(db_path: Path) -> list[tuple]:
    with sqlite3.connect(db_path) as conn:
        return conn.execute("SELECT session_id, j, tag, prediction, explanation FROM drafts ORDER BY session_id, j").fetchall()


def test_a_draft_is_replaced_as_typed_and_deleted_when_its_message_is_stored(db_path: Path) -> None:
    from pxp_tui.engine import Message
    from pxp_tui.protocol import Sender, Tag

    run_id = make_run(db_path, limit=1)
    with Blackboard.open(db_path) as board:
        session = board.start_session(run_id, board.run(run_id).plan[0], 0)
        machine = Message(session, 1, Sender.MACHINE, Tag.INIT, "CCO", "why")
        board.record(machine, {}, None)
        assert drafts.save(board, Draft(session, 2, None, "CC", ""))
        assert drafts.save(board, Draft(session, 2, "REVISE", "CCN", "my reason"))  # replaced, not added
        assert draft_rows(db_path) == [(session, 2, "REVISE", "CCN", "my reason")]
        assert drafts.of_run(board, run_id) == {(session, 2): Draft(session, 2, "REVISE", "CCN", "my reason")}
        board.record(Message(session, 2, Sender.HUMAN, Tag.REVISE, "CCN", "my reason"), {}, None)
        assert draft_rows(db_path) == []  # the message is stored: the draft goes in the same transaction
        assert not drafts.save(board, Draft(session, 2, "RATIFY", "late", ""))  # a draft never outlives its message
        assert drafts.save(board, Draft(session, 4, None, "CC", ""))
        board.skip_session(session)
        assert draft_rows(db_path) == []  # the session ended: nothing left to answer
        assert not drafts.save(board, Draft(session, 4, None, "CC", ""))
    assert [m[1] for m in messages(db_path, run_id)] == [1, 2]  # the messages are exactly the protocol's


@pytest.fixture
def v6_file(tmp_path: Path) -> Path:
    return unpacked("blackboard-v6.db.gz", tmp_path / "v6.db")


def test_a_schema_6_file_is_migrated_with_its_rows_and_takes_drafts(v6_file: Path) -> None:
    def count(table: str) -> int:
        with sqlite3.connect(v6_file) as conn:
            return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    with sqlite3.connect(v6_file) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (6,)
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'drafts'").fetchall()
    before = {table: count(table) for table in ("runs", "data", "messages", "context", "rounds")}
    with Blackboard.open(v6_file, readonly=True) as board:  # read as it is: no drafts, no error
        assert drafts.of_run(board, 1) == {}
    with Blackboard.open(v6_file) as board:
        assert board.db.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        assert drafts.of_run(board, 1) == {}
    assert {table: count(table) for table in before} == before
    with sqlite3.connect(v6_file) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        triggers = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"messages_drafts_sent", "data_drafts_ended"} <= triggers


async def test_quitting_mid_answer_keeps_the_draft_and_reopening_brings_it_back(db_path: Path) -> None:
    async with live_app(db_path, limit=3) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("3")  # REVISE: the prediction field takes the focus
        await type_answer(pilot, app, "CC(=O)N", "an amide, not the ester")
        await wait_for(pilot, lambda: draft_rows(db_path), "the draft to be written")
        await pilot.press("escape", "q")  # from the explanation back to the tags, where q quits
        confirm = await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen" and app.screen, "the quit question")
        assert "kept as a draft" in str(confirm.query_one("#confirm-question").render())
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert [m[1] for m in messages(db_path, run_id)] == [1]  # no message for the draft
    session = rows(db_path, "SELECT session_id FROM data")[0]["session_id"]
    assert draft_rows(db_path) == [(session, 2, "REVISE", "CC(=O)N", "an amide, not the ester")]

    again = PXPApp(db_path, run_id=run_id)
    async with again.run_test(size=(80, 24)) as pilot:
        screen = await expert_turn(pilot, again, j=2)
        picker = screen.query_one("#picker")
        assert picker.typed().tag is not None and picker.typed().tag.value == "REVISE"
        assert screen.query_one("#answer-prediction", Input).value == "CC(=O)N"
        assert screen.query_one("#answer-explanation", TextArea).text == "an amide, not the ester"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 3, "the answer and the machine's reply")
        assert draft_rows(db_path) == []  # sent: the draft is gone
    sent = messages(db_path, run_id)[1]
    assert sent[1:4] == (2, "human", "REVISE") and sent[4] == "CC(=O)N"


async def test_the_quit_question_mentions_a_draft_only_when_one_is_kept(db_path: Path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        await pilot.press("q")
        confirm = await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen" and app.screen, "the quit question")
        assert "draft" not in str(confirm.query_one("#confirm-question").render())  # nothing typed: nothing kept
        await pilot.press("n")
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)
    assert draft_rows(db_path) == []
