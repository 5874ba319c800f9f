"""Terminal escape sequences from a model's reply, a dataset and a blackboard are shown as text, everywhere.

One blackboard holds them all (``hostile_board``): a DRUG dataset imported from a CSV whose names and
explanations hold every escape sequence of ``pxp_harness/hostile.py``, runs whose machine (the stub server,
through litellm's HTTP path) explains with them, and fields written afterwards with ``sqlite3`` (notes, an expert's name, an experiment,
a prediction, a distribution's label, an error). Every screen of the app and of the review is drawn from it,
and every line of every command printed; what reaches the terminal is read back: no character a terminal
acts on, the escapes there as text, and the stored text unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, TextArea

from pxp_harness.app_helpers import expert_turn, outcome_shown, settled, wait_for
from pxp_harness.cli_helpers import pxp
from pxp_harness.hostile import DATASET, ESCAPES, REPLY, hostile, hostile_board, leaks, machine_reply, screen_text, shown, stored
from pxp_harness.stub import StubServer
from pxp_tui.app.review import ReviewApp
from pxp_tui.app.session.failure import FailureScreen
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.shared.note import NoteScreen
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks import get_task


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-hostile-0000000000000000")
    with StubServer(reply=machine_reply) as server:
        yield server


@pytest.fixture
def board(tmp_path: Path, stub: StubServer, capsys: pytest.CaptureFixture[str]) -> Path:
    return hostile_board(tmp_path, stub.url, capsys)


def clean(app: object) -> str:
    """The screen as drawn: nothing a terminal acts on; returned for more checks."""
    text = screen_text(app)
    assert not leaks(text), f"raw {sorted(set(leaks(text)))!r} on the screen:\n{text}"
    return text


def test_the_blackboard_holds_what_was_sent_exactly(board: Path) -> None:
    """Nothing is made visible on the way in: the reply, the dataset's fields and the notes are stored as sent."""
    assert set(stored(board, "SELECT raw FROM messages WHERE sender = 'machine' AND raw IS NOT NULL")) == {REPLY}
    explanation = get_task("drug").parse(REPLY)[1]
    assert ESCAPES in explanation
    assert explanation in stored(board, "SELECT explanation FROM messages WHERE sender = 'machine'")
    assert hostile("dataset") in stored(board, "SELECT explanation FROM messages WHERE sender = 'human'")  # the proxy's
    assert stored(board, "SELECT name FROM datasets") == [DATASET]
    assert hostile("name") in [json.loads(meta).get("name") for meta in stored(board, "SELECT meta FROM instances")]
    assert set(stored(board, "SELECT note FROM annotations")) == {hostile("note")}


async def test_every_review_screen_shows_the_escapes_as_text(board: Path) -> None:
    app = ReviewApp(board)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot)
        runs = clean(app)
        assert shown("experiment") in runs or shown("expert") in runs
        await pilot.press("enter")  # run 1's sessions
        await settled(pilot)
        sessions = clean(app)
        assert shown("set") in sessions and shown("name") in sessions
        notes = app.screen.query_one("#sessions-table", DataTable).get_column("note")
        assert all(shown("note") in str(cell) for cell in notes)  # the note's first words, in its column
        await pilot.press("n")  # the note, in its editor
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), "the note")
        await pilot.pause()
        assert shown("note") in clean(app)
        await pilot.press("ctrl+s")  # saved unchanged: the note as stored, not its shown form
        await settled(pilot)
        assert set(stored(board, "SELECT note FROM annotations")) == {hostile("note")}
        await pilot.press("enter")  # the first session, replayed
        await settled(pilot)
        await pilot.press("end")
        await settled(pilot)
        replay = clean(app)
        for label in ("prediction", "reply", "dataset", "label", "note"):
            assert shown(label) in replay, label


async def test_the_start_screen_lists_hostile_datasets_and_runs_as_text(board: Path) -> None:
    app = PXPApp(board)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: shown("expert") in screen_text(app), "the unfinished runs")
        clean(app)
        app.screen.query_one("#start-dataset").expanded = True  # the datasets of the task, hostile name among them
        await pilot.pause()
        assert shown("set") in clean(app)


async def test_a_live_session_shows_the_escapes_as_text_and_sends_what_was_shown(board: Path) -> None:
    """The machine's explanation, the instance's name, the expert's name in every pane and dialog of a session;
    a RATIFY of the prefilled answer sends the machine's text as stored, not as shown."""
    app = PXPApp(board, run_id=2)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        screen = await expert_turn(pilot, app, 2)
        await pilot.pause()
        session = clean(app)
        assert "name2" not in session  # run 2 has one session: the first instance
        for label in ("name", "reply"):
            assert shown(label) in session, label
        field = app.screen.query_one("#answer-explanation", TextArea)
        assert ESCAPES not in field.text and shown("reply") in field.text  # shown, as text
        assert "\\x1b" not in app.screen.query_one("#answer-prediction", Input).value  # a valid pathway
        await pilot.press("f")  # the instance's picture, full-screen, its name above
        await pilot.pause()
        assert shown("name") in clean(app)
        await pilot.press("tab")  # the machine's proposal, full-screen
        await pilot.pause()
        assert app.screen.which == "prediction" and shown("name") in clean(app)
        await pilot.press("escape")
        await pilot.press("n")  # a note: the heading names the instance
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), "the note")
        assert shown("name") in clean(app)
        await pilot.press("escape")
        await pilot.press("x")  # skip? the question names the instance
        await pilot.pause()
        assert shown("name") in clean(app)
        await pilot.press("n")  # no
        await pilot.press("1", "ctrl+s")  # RATIFY, the prefilled answer as it is
        await outcome_shown(pilot, app)
        assert shown("reply") in clean(app)  # the outcome: the last message as sent
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: screen.state is SessionState.DONE and "The run is finished" in screen_text(app), "the summary"
        )
        await settled(pilot)
        assert shown("expert") in clean(app)
        app.notify(hostile("notice"), title=hostile("title"))  # every notification, whoever sends it
        await wait_for(pilot, lambda: shown("notice") in screen_text(app), "the notification")
        assert shown("title") in clean(app)
        app.push_screen(FailureScreen(hostile("cause"), hostile("model")))
        await wait_for(pilot, lambda: shown("cause") in screen_text(app), "the failure")
        assert shown("model") in clean(app)  # the model to switch to
    sql = "SELECT explanation FROM messages m JOIN data d USING (session_id) WHERE d.run_id = 2 AND m.j <= 2 ORDER BY m.j"
    machine, expert = stored(board, sql)
    assert ESCAPES in machine
    assert expert == machine  # sent as stored, not as shown


def test_every_command_prints_the_escapes_as_text(board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """metrics, report (and its Markdown file), export (its lines; its files exact), datasets, evaluations, merge, errors."""
    report = tmp_path / "report"
    commands = [
        ["metrics", "--db", board],
        ["metrics", "--json", "--db", board],
        ["report", "--db", board, "--by", "experiment"],
        ["report", "--db", board, "--by", "expert", "--out", report],
        ["export", "--format", "markdown", "--out", tmp_path / "export", "--db", board],
        ["export", "--format", "csv", "--out", tmp_path / "export", "--db", board],
        ["datasets", "--db", board],
        ["evaluations", "--db", board],
        ["merge", tmp_path / "merged.db", board],
        ["report", "--experiment", hostile("missing"), "--db", board],  # an error quoting what was asked
        ["export", "--format", "csv", "--table", hostile("table"), "--out", "-", "--db", board],
    ]
    printed = ""
    for argv in commands:
        _, out, err = pxp(capsys, *argv)
        assert not leaks(out + err), argv
        printed += out + err
    for label in ("experiment", "expert", "set", "missing", "table"):
        assert shown(label) in printed, label
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert not leaks(markdown) and shown("expert") in markdown
    assert hostile("expert") in (report / "intelligibility.csv").read_bytes().decode()  # data files: exact
    assert hostile("note") in (tmp_path / "export" / "sessions.csv").read_bytes().decode()
    table = (tmp_path / "export" / "sessions.md").read_text(encoding="utf-8")  # a table for reading
    assert not leaks(table) and shown("note") in table
    with Blackboard.open(tmp_path / "merged.db", readonly=True) as merged:
        assert {r.config.experiment for r in merged.runs()} == {hostile("experiment")}


def test_data_to_a_pipe_is_exact_and_to_a_terminal_visible(board: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    _, piped, _ = pxp(capsys, "export", "--format", "csv", "--table", "annotations", "--out", "-", "--db", board)
    assert hostile("note") in piped
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    _, printed, _ = pxp(capsys, "export", "--format", "csv", "--table", "annotations", "--out", "-", "--db", board)
    assert not leaks(printed) and shown("note") in printed
