"""The start screen: one key starts the demo, bad input is refused, unfinished runs resume, the review opens."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start import screen as start

from .app_helpers import expert_turn, make_run, rows, session_screen, wait_for


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
    [("n", "0", "--n must be at least 1"), ("k", "", "k must be a whole number"), ("name", "  ", "name is empty")],
)
async def test_bad_settings_are_refused_with_a_reason_and_nothing_is_written(db_path, field, value, message) -> None:
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_screen(pilot, app)
        screen.query_one(f"#start-{field}", Input).value = value
        await pilot.press("ctrl+s")
        error = screen.query_one("#start-error")
        await wait_for(pilot, lambda: message in str(error.render()), f"the message {message!r}")
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
