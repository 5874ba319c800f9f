"""The start screen: one key starts the demo, bad input is refused, unfinished runs resume, the review opens."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, Select

from pxp_harness.app_helpers import expert_turn, make_run, rows, session_screen, wait_for
from pxp_harness.internals import select_options
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start import screen as start


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setattr(start, "default_name", lambda: "alice")


async def start_screen(pilot, app):
    """The start screen, once its fields are shown (they are mounted a frame after the rest)."""
    return await wait_for(
        pilot,
        lambda: isinstance(app.screen, start.StartScreen) and app.screen.fields.mounted.is_set() and app.screen,
        "the start screen",
    )


DEMO_RUN = {
    "task": "drug", "dataset": "demo-drug", "model": "offline", "checker": "offline", "human_kind": "live",
    "expert": "alice", "n": 10, "k": 3, "context": "all",
}  # fmt: skip


@pytest.mark.parametrize("at_once", [False, True], ids=["once-the-fields-show", "before-the-fields-show"])
async def test_enter_starts_a_live_session_on_the_demo_with_the_offline_machine(db_path, at_once) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        if at_once:  # the first frame is up, its fields come a frame later: enter starts with what they show
            assert isinstance(app.screen, start.StartScreen) and not app.screen.fields.mounted.is_set()
        else:
            await start_screen(pilot, app)
        await pilot.press("enter")
        screen = await expert_turn(pilot, app, j=2)
        assert screen.exchange.instance.dataset == "demo-drug"
    run = rows(db_path, "SELECT task, dataset, model, checker, human_kind, expert, n, k, context FROM runs")
    assert run == [DEMO_RUN]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_start_screen_paints_before_its_fields_and_nothing_moves_when_they_come(db_path, size) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, start.StartScreen) and not screen.fields.mounted.is_set()  # the first frame
        placed = ("#start-button", "#start-error", "#start-runs", "#resume-button", "#review-button")
        before = {name: screen.query_one(name).region for name in placed}
        assert screen.focused is screen.query_one("#start-button")  # enter starts the demo from the first frame
        await start_screen(pilot, app)
        await pilot.pause()
        assert {name: screen.query_one(name).region for name in placed} == before
        fields, slot = screen.query_one("#start-grid"), screen.query_one("#start-fields")
        assert fields.outer_size.height == slot.size.height  # every field shows, in the room kept for them
        assert screen.query_one("#start-context").region.bottom <= slot.region.bottom


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("n", "0", "n (messages per session at most) must be 1 or more, got 0"),
        ("k", "-3", "k (REJECT allowed after message k) must be 1 or more, got -3"),
        ("k", "", "k (REJECT allowed after message k) must be a whole number"),
        ("name", "  ", "Your name is empty"),
        ("limit", "0", "N (the first N instances) must be 1 or more, got 0"),
    ],
)
async def test_bad_settings_are_refused_with_a_reason_and_nothing_is_written(db_path, field, value, message) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        if field == "limit":
            screen.query_one("#start-instances", Select).value = "first"
            await wait_for(pilot, lambda: not screen.query_one("#start-limit", Input).disabled, "N to be enabled")
        screen.query_one(f"#start-{field}", Input).value = value
        await pilot.press("ctrl+s")
        error = screen.query_one("#start-error")
        await wait_for(pilot, lambda: message in str(error.render()), f"the message {message!r}")
        assert "--" not in str(error.render())  # the form's words, not the command line's
        assert app.screen is screen
    assert rows(db_path, "SELECT COUNT(*) AS n FROM runs")[0]["n"] == 0


async def test_proxy_and_settings_from_the_form_reach_the_run(db_path) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        screen.query_one("#start-human").value = "proxy"
        screen.query_one("#start-n", Input).value = "6"
        screen.query_one("#start-k", Input).value = "2"
        screen.query_one("#start-context").value = "none"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: session_screen(app), "the session screen")
    run = rows(db_path, "SELECT expert, human_kind, n, k, context FROM runs")[0]
    assert run == {"expert": None, "human_kind": "proxy", "n": 6, "k": 2, "context": "none"}


async def test_an_unfinished_run_is_listed_and_resumes(db_path) -> None:
    run_id = make_run(db_path)
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        listed = screen.query_one("#start-unfinished")
        await wait_for(pilot, lambda: listed.option_count and listed.get_option_at_index(0).id == str(run_id), "the run")
        assert "alice" in str(listed.get_option_at_index(0).prompt)
        listed.focus()
        listed.highlighted = 0
        await pilot.press("ctrl+r")
        session = await expert_turn(pilot, app, j=2)
        assert session.run_id == run_id
    assert rows(db_path, "SELECT COUNT(*) AS n FROM runs")[0]["n"] == 1


async def test_ctrl_r_resumes_the_latest_unfinished_run_without_selecting_it_first(db_path) -> None:
    # the README: the panel lists unfinished runs and ctrl+r resumes the selected one; the latest is selected
    make_run(db_path)
    run_id = make_run(db_path)
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        listed = screen.query_one("#start-unfinished")
        await wait_for(pilot, lambda: listed.option_count == 2, "the runs")
        await pilot.press("ctrl+r")
        session = await expert_turn(pilot, app, j=2)
        assert session.run_id == run_id


async def test_review_of_past_runs_opens_from_the_start_screen(db_path) -> None:
    from pxp_tui.app.review import ReviewScreen

    make_run(db_path)
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        assert screen.query("#review-button")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")


async def test_a_file_that_is_not_a_blackboard_is_refused_and_left_alone(tmp_path, monkeypatch) -> None:
    attempts: list = []  # each start's worker: the test waits for the attempt's end, not for a time
    begin = start.StartScreen.start_run
    monkeypatch.setattr(start.StartScreen, "start_run", lambda self: attempts.append(begin(self)) or attempts[-1])
    path = tmp_path / "notes.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(100))  # looks like SQLite, is not a pxp blackboard
    before = path.read_bytes()
    app = PXPApp(path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        error = screen.query_one("#start-error")
        await wait_for(pilot, lambda: "notes.db" in str(error.render()), "the reason")
        assert screen.query_one("#start-button").disabled
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: attempts and attempts[-1].is_finished, "the attempt to start")
        assert app.screen is screen and "notes.db" in str(error.render())
    assert path.read_bytes() == before


async def test_the_first_3_instances_make_a_run_of_3_whose_header_says_which_of_3(db_path) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_screen(pilot, app)
        limit = screen.query_one("#start-limit", Input)
        assert limit.disabled  # N is for "the first N" only
        screen.query_one("#start-instances").value = "first"
        await wait_for(pilot, lambda: not limit.disabled, "N to be enabled")
        limit.value = "3"
        await pilot.press("ctrl+s")
        session = await expert_turn(pilot, app, j=2)
        assert "session 1 of 3 · message 2 of 10" in session.sub_title
    assert [len(json.loads(r["plan"])) for r in rows(db_path, "SELECT plan FROM runs")] == [3]


async def test_a_split_of_an_imported_dataset_is_offered_with_its_size_and_runs_alone(db_path) -> None:
    from dataclasses import replace

    from pxp_tui.blackboard import Blackboard
    from pxp_tui.tasks import get_task

    demo = get_task("drug").demo_rows()
    with Blackboard.open(db_path) as board:
        split = [replace(row, split="val" if i < 4 else "train") for i, row in enumerate(demo[:10])]
        board.add_dataset("ten", "drug", split, source="test")
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        dataset, choice = screen.query_one("#start-dataset"), screen.query_one("#start-instances")
        await wait_for(pilot, lambda: any(value == "ten" for _, value in select_options(dataset)), "the imported dataset")
        dataset.value = "ten"
        await wait_for(pilot, lambda: len(select_options(choice)) == 3, "the dataset's choices")
        assert [str(label) for label, _ in select_options(choice)] == ["all of train (6)", "the first N", "the val split (4)"]
        choice.value = "split:val"
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=2)
    run = rows(db_path, "SELECT split, plan FROM runs")[0]
    assert run["split"] == "val" and len(json.loads(run["plan"])) == 4


async def test_with_an_unfinished_run_its_list_has_the_focus_enter_resumes_and_ctrl_s_starts_anew(db_path) -> None:
    run_id = make_run(db_path)
    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_screen(pilot, app)
        listed = screen.query_one("#start-unfinished")
        await wait_for(pilot, lambda: screen.focused is listed, "the focus on the unfinished runs")
        assert "ctrl+s" in str(screen.query_one("#start-button").label)  # a new run: one key, shown
        assert listed.region.bottom <= 23  # on screen at 80x24, above the footer
        await pilot.press("enter")
        session = await expert_turn(pilot, app, j=2)
        assert session.run_id == run_id
    assert rows(db_path, "SELECT COUNT(*) AS n FROM runs")[0]["n"] == 1

    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_screen(pilot, app)
        await wait_for(pilot, lambda: screen.focused is screen.query_one("#start-unfinished"), "the focus on the runs")
        await pilot.press("ctrl+s")
        session = await expert_turn(pilot, app, j=2)
        assert session.run_id != run_id
    assert rows(db_path, "SELECT COUNT(*) AS n FROM runs")[0]["n"] == 2


def test_a_run_s_progress_counts_sessions_done_and_skipped() -> None:
    assert start.progress_words(1, 1, 23) == "2 of 23 sessions, 1 skipped"
    assert start.progress_words(3, 0, 23) == "3 of 23 sessions"


async def test_one_done_and_one_skipped_read_2_of_3_sessions_1_skipped(db_path) -> None:
    from pxp_tui.blackboard import Blackboard

    run_id = make_run(db_path, limit=3, human="proxy")
    with Blackboard.open(db_path) as board:
        plan = board.run(run_id).plan
        first = board.start_session(run_id, plan[0], 0)
        board.db.execute("UPDATE data SET ended_at = '2026-01-01', stop_reason = 'ratified' WHERE session_id = ?", [first])
        board.skip_session(board.start_session(run_id, plan[1], 1))
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        listed = screen.query_one("#start-unfinished")
        await wait_for(pilot, lambda: listed.option_count and listed.get_option_at_index(0).id, "the run")
        assert "2 of 3 sessions, 1 skipped" in str(listed.get_option_at_index(0).prompt)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_each_field_has_a_line_of_help_that_fits_and_the_help_explains_them_all(db_path, size) -> None:
    from pxp_tui.app.start import fields

    app = PXPApp(db_path)
    async with app.run_test(size=size) as pilot:
        screen = await start_screen(pilot, app)
        help_line = screen.query_one("#start-help")
        for name in ("n", "k", "context", "checker", "learn-gate", "instances"):
            screen.query_one(f"#start-{name}").focus()
            line = fields.help_line(name)
            await wait_for(pilot, lambda line=line: str(help_line.render()) == line, f"the help of {name}")
            assert len(line) <= help_line.size.width  # one line, whole, at this size
        screen.query_one("#start-button").focus()
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        shown = str(app.screen.query_one("#help-intro Static").render())
        for name in ("n", "k", "context", "checker", "learn-gate"):
            assert fields.FIELDS[name].full in shown


def test_every_line_of_help_fits_the_form_at_80_columns() -> None:
    from pxp_tui.app.start import fields

    assert all(len(fields.help_line(name)) <= fields.LINE for name in [*fields.FIELDS, None])


async def test_the_blackboard_read_after_the_form_was_taken_down_fills_nothing_and_the_app_quits_cleanly(db_path) -> None:
    """The expert quits at once: the form's fields are being removed while the blackboard's contents arrive. The
    reading stops there; the app ends without an error (on Textual 7 it ended with a traceback from the form's
    dataset field, whose list was already gone)."""
    app = PXPApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_screen(pilot, app)
        reading = "the first reading of the blackboard"
        await wait_for(pilot, lambda: not any(w.group == "start-board" and not w.is_finished for w in app.workers), reading)
        await screen.query_one("#start-dataset", Select).query_one("SelectOverlay").remove()  # as the app's teardown does
        worker = screen.load_board()  # the blackboard's contents arriving now
        await worker.wait()
        assert worker.error is None  # (and run_test raises any error the app ended with)


async def test_a_file_found_not_a_blackboard_after_the_form_was_taken_down_tells_nobody_and_the_app_quits_cleanly(
    tmp_path,
) -> None:
    """The expert quits at once on a file that is not a blackboard: the reason arrives once the form is being
    removed. Nothing is left to tell; the app ends without an error."""
    path = tmp_path / "notes.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(100))  # looks like SQLite, is not a pxp blackboard
    app = PXPApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start_screen(pilot, app)
        error = screen.query_one("#start-error")
        await wait_for(pilot, lambda: "notes.db" in str(error.render()), "the reason")
        await error.remove()  # as the app's teardown does
        worker = screen.load_board()  # the reason arriving now
        await worker.wait()
        assert worker.error is None  # (and run_test raises any error the app ended with)


async def test_a_run_another_pxp_is_writing_is_listed_not_offered_and_enter_starts_the_forms_run(db_path) -> None:
    """Another expert's run, started a moment before on the same file: resuming it here would be refused (its writer
    lives), so enter keeps starting this expert's run, as on a file without unfinished runs."""
    import subprocess
    import sys

    from ..conftest import ROOT

    run_id = make_run(db_path)
    hold = (
        "import sys, time\nfrom pxp_tui.blackboard import Blackboard\nboard = Blackboard.open(sys.argv[1])\n"
        "with board.writing(int(sys.argv[2])):\n    board.set_status(int(sys.argv[2]), 'running')\n"
        "    print('held', flush=True)\n    time.sleep(600)\n"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", hold, str(db_path), str(run_id)], stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT)}
    )
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        app = PXPApp(db_path)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await start_screen(pilot, app)
            listed = screen.query_one("#start-unfinished")
            await wait_for(pilot, lambda: listed.option_count >= 1 and listed.get_option_at_index(0).disabled, "the run listed")
            assert "running in another pxp" in str(listed.get_option_at_index(0).prompt)
            assert screen.focused is not listed
            await pilot.press("enter")
            session = await expert_turn(pilot, app, j=2)
            assert session.run_id != run_id
    finally:
        other.kill()
        other.wait()
    assert rows(db_path, "SELECT COUNT(*) AS n FROM runs")[0]["n"] == 2
