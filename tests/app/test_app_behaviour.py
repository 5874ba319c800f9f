"""The session screen's behaviour: cancel and retry, quitting and reopening, model failures, proxy runs."""

from __future__ import annotations

import pytest

from pxp_harness.app_helpers import (
    expert_turn,
    live_app,
    make_run,
    messages,
    rows,
    run_done,
    session_screen,
    type_answer,
    wait_for,
)
from pxp_harness.internals import notifications
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.conversation import Conversation
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.protocol import Tag


@pytest.fixture(autouse=True)
def _pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")


def status(db_path, run_id: int) -> str:
    return rows(db_path, "SELECT status FROM runs WHERE id = ?", (run_id,))[0]["status"]


async def machine_thinking(pilot, app) -> object:
    def thinking():
        screen = session_screen(app)
        return screen if screen is not None and screen.state is SessionState.MACHINE and screen.engine is not None else None

    return await wait_for(pilot, thinking, "the machine to be thinking")


@pytest.mark.slow
async def test_a_confirmed_cancel_of_a_pending_machine_call_writes_nothing_and_r_continues(db_path, machine_gate) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await type_answer(pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine.")
        machine_gate.close()  # the machine's next call hangs
        await pilot.press("ctrl+s")
        screen = await machine_thinking(pilot, app)
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) == 2, "the expert's message to be committed")
        assert "thinking" in str(screen.query_one("Thinking").render())
        await pilot.press("ctrl+g")  # cancel the call: asks first
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.state is SessionState.STOPPED, "the cancellation")
        assert [m[1] for m in messages(db_path, run_id)] == [1, 2]  # nothing written for message 3
        assert status(db_path, run_id) == "paused"
        assert "nothing pending was written" in str(screen.query_one("#picker-head").render())

        machine_gate.open()
        await pilot.press("r")
        await expert_turn(pilot, app, j=4)  # resumed at the next message
    assert [m[1] for m in messages(db_path, run_id)] == [1, 2, 3]


@pytest.mark.slow
async def test_quit_mid_session_asks_then_reopening_continues_at_the_next_message(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        shown = screen.exchange.messages[0]
        await pilot.press("q")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the quit question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "the session screen again")
        await pilot.press("q")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the quit question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_value == 0
    assert status(db_path, run_id) == "paused"
    assert [m[1] for m in messages(db_path, run_id)] == [1]

    again = PXPApp(db_path, run_id=run_id)
    async with again.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, again, j=2)
        assert screen.exchange.messages[0].explanation == shown.explanation  # read back, not asked again
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, again)
    assert [(j, s, t) for _, j, s, t, _ in messages(db_path, run_id)] == [
        (1, "machine", "INIT"),
        (2, "human", "RATIFY"),
        (3, "machine", "RATIFY"),
    ]


async def test_a_model_failure_shows_its_cause_and_switching_model_continues(db_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    async with live_app(db_path, limit=1, model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9") as (app, pilot, run_id):
        await wait_for(pilot, lambda: app.screen.query("#failure-cause"), "the failure notice")
        cause = str(app.screen.query_one("#failure-cause").render())
        assert "gpt-4o-mini" in cause and "Connection error" in cause  # refused: nothing listens there
        assert messages(db_path, run_id) == []
        await pilot.press("w")  # the model field
        await wait_for(pilot, lambda: app.screen.query_one("#failure-model").has_focus, "the model field's focus")
        await pilot.press("ctrl+a", "ctrl+k", *"offline", "enter")
        await expert_turn(pilot, app, j=2)
    run = rows(db_path, "SELECT model, checker FROM runs WHERE id = ?", (run_id,))[0]
    assert run == {"model": "offline", "checker": "offline"}
    first = rows(db_path, "SELECT model FROM messages WHERE j = 1")[0]
    assert first["model"] == "pxp-offline/drug"


async def test_proxy_run_plays_in_the_same_screens(db_path) -> None:
    async with live_app(db_path, human="proxy", limit=3) as (app, pilot, run_id):
        screen = await wait_for(pilot, lambda: (s := session_screen(app)) and s.state is SessionState.DONE and s, "the run")
        assert not screen.query_one("TagPicker").display  # nobody to answer for
        assert "3 of 3 sessions done" in str(screen.query_one("#metrics-sessions").render())
        assert screen.query_one(Conversation).entries  # the last session's messages are there
    finished = rows(db_path, "SELECT COUNT(*) AS n FROM data WHERE run_id = ? AND stop_reason IS NOT NULL", (run_id,))
    assert finished[0]["n"] == 3
    senders = {m[2] for m in messages(db_path, run_id)}
    assert senders == {"machine", "human"}


async def test_smiles_are_checked_as_typed_and_invalid_ones_are_not_sent(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await type_answer(pilot, app, prediction="C1CC.N", keys=True)
        check = str(screen.query_one("#prediction-check").render())
        assert "not valid SMILES: C1CC" in check
        await pilot.press("ctrl+s")
        refused = lambda: [n for n in notifications(app) if "not valid SMILES: C1CC" in n]  # noqa: E731
        await wait_for(pilot, refused, "the send refused, with the reason")
        assert screen.state is SessionState.HUMAN and screen.driver.human.waiting and len(messages(db_path, run_id)) == 1
        await type_answer(pilot, app, prediction="C1CC1.N", keys=True)
        assert "well formed" in str(screen.query_one("#prediction-check").render())
        # the reactants typed are drawn (they differ from the machine's)
        await wait_for(pilot, lambda: screen.query("#answer-picture .picture-image"), "the reactants' drawing")


async def test_guard_helper_proposes_the_tag_of_the_table_and_records_the_guards(db_path) -> None:
    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("g")  # the fields hold the machine's answer: match and agree
        choice = screen.query_one("TagChoice")
        await wait_for(pilot, lambda: choice.selected is Tag.RATIFY, "the proposed RATIFY")
        await pilot.click("#guard-agree")  # "the explanation does not agree with mine"
        await wait_for(pilot, lambda: choice.selected is Tag.REFUTE, "the proposed REFUTE")
        assert "REFUTE" in str(screen.query_one("#guard-proposal").render())
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's message")
    sent = rows(db_path, "SELECT tag, guard_match, guard_agree, guard_changed FROM messages WHERE j = 2")[0]
    assert sent == {"tag": "REFUTE", "guard_match": 1, "guard_agree": 0, "guard_changed": 0}


async def test_header_names_run_task_model_session_and_message(db_path) -> None:
    async with live_app(db_path, limit=2) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        assert app.title == "PXP"
        assert screen.sub_title == f"run {run_id} · DRUG · offline baseline · session 1 of 2 · message 2 of 10"
        await pilot.press("1", "ctrl+s")
        await expert_turn(pilot, app, j=2)
        assert screen.sub_title.endswith("session 2 of 2 · message 2 of 10")


async def test_metrics_and_conversation_views_fill_the_screen_at_80x24(db_path) -> None:
    async with live_app(db_path, size=(80, 24), limit=2) as (app, pilot, _run_id):
        screen = await expert_turn(pilot, app, j=2)
        metrics = screen.query_one("#metrics")
        assert metrics.region.area == 0  # no room for it beside the rest at 80 x 24
        await pilot.press("m")
        await pilot.pause()
        assert screen.maximized is metrics and metrics.region.width == 80
        await pilot.press("m")
        await pilot.press("c")
        await pilot.pause()
        assert screen.maximized is screen.query_one("#conversation")


@pytest.mark.slow
async def test_p_pauses_and_resumes_a_proxy_run(db_path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0.05")
    async with live_app(db_path, human="proxy", limit=23) as (app, pilot, run_id):
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 3, "the proxy run to be under way")
        screen = session_screen(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.state is SessionState.STOPPED, "the pause")
        assert status(db_path, run_id) == "paused"
        engines = lambda: [w for w in app.workers if w.group == "engine" and not w.is_finished]  # noqa: E731
        await wait_for(pilot, lambda: not engines(), "every engine to stop")
        paused_at = len(messages(db_path, run_id))
        await pilot.pause()
        assert len(messages(db_path, run_id)) == paused_at  # nothing moves while paused: nothing is left to write
        await pilot.press("p")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) > paused_at, "the run to go on")
        assert status(db_path, run_id) == "running"


async def test_a_run_that_is_not_there_is_said_so_without_a_traceback(db_path) -> None:
    make_run(db_path)
    app = PXPApp(db_path, run_id=42)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: session_screen(app), "the session screen")
        head = screen.query_one("#picker-head")
        await wait_for(pilot, lambda: "Cannot open run 42: no run 42" in str(head.render()), "the reason")
        assert app.is_running
