"""The machine's latency is the model's own time; the next instance's picture is drawn ahead and kept; the footer's
keys keep their places.

No wall-clock assertions: the tests check that the time shown is the one the model's call measured (and
passed through to the pane), and count drawings rather than time them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from pxp_harness.app_helpers import expert_turn, make_run, outcome_shown, settled, wait_for
from pxp_harness.internals import ChopsUpdate, FooterKey, LayoutUpdate, on_terminal_writes
from pxp_tui.agents import offline
from pxp_tui.agents.llm import LLMClient
from pxp_tui.app.picture import cache as picture_cache
from pxp_tui.app.picture.cache import CACHE, PictureCache, instance_key
from pxp_tui.app.session.widgets.machine_pane import latency_text
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task
from pxp_tui.tasks.pictures import Surface

MESSAGES = [{"role": "user", "content": "Target: CCO\nPropose reactants."}]


def fixed_answer_time(monkeypatch: pytest.MonkeyPatch, ms: float) -> list[int]:
    """Make the offline model take ``ms`` and report it as its answer's own time; returns a list counting
    its calls. (The client keeps the smaller of the model's time and the round trip, so a model that
    reported more than it took would be clamped on a fast machine.)"""
    real = offline.timed_answer
    calls: list[int] = []

    def timed(name: str, messages: list[dict[str, Any]]) -> tuple[str, float]:
        calls.append(1)
        text = real(name, messages)[0]
        time.sleep(ms / 1000)  # the model really takes its time: a round trip is never shorter than it
        return text, ms

    monkeypatch.setattr(offline, "timed_answer", timed)
    return calls


# -- the model's own time ---------------------------------------------------------------------------
async def test_an_offline_call_reports_the_models_own_time_and_the_apps_overhead_apart(monkeypatch) -> None:
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    register_offline_models(get_task("drug"))  # pxp-offline/drug
    fixed_answer_time(monkeypatch, 7.0)
    completion = await LLMClient("pxp-offline/drug").complete(MESSAGES)
    assert completion.latency_ms == 7.0  # what the model measured, not litellm's round trip
    assert completion.call_ms is not None and completion.call_ms >= completion.latency_ms
    assert completion.overhead_ms == pytest.approx(completion.call_ms - 7.0)


async def test_a_simulated_latency_is_part_of_the_models_own_time(monkeypatch) -> None:
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0.2")
    register_offline_models(get_task("drug"))
    fixed_answer_time(monkeypatch, 3.0)
    completion = await LLMClient("pxp-offline/drug").complete(MESSAGES)
    assert completion.latency_ms == pytest.approx(203.0)


async def test_the_machine_pane_shows_the_models_own_time_and_the_apps_overhead_beside_it(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    calls = fixed_answer_time(monkeypatch, 7.0)
    run_id = make_run(db_path)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        message = screen.exchange.messages[-1]
        meta = message.meta
        # every call of the machine's message (its answer, any check) counted at the model's 7 ms
        assert calls and meta["latency_ms"] == pytest.approx(7.0 * round(meta["latency_ms"] / 7.0))
        assert meta["latency_ms"] >= 7.0
        shown = str(screen.query_one("#machine-meta", Static).render())
        assert f"· {latency_text(meta['latency_ms'])} ·" in shown
        assert f"app +{latency_text(meta['overhead_ms'])}" in shown
    stored = app_rows(db_path, message.session_id, message.j)
    assert stored["latency_ms"] == pytest.approx(meta["latency_ms"])  # the model's time is what the blackboard keeps


#: in a fresh interpreter: the app's preload (``preload.load``), then two offline calls, each's work counted
FIRST_CALL = """
import asyncio, cProfile, json, pstats, sys
from pxp_tui.agents.llm import LLMClient
from pxp_tui.app.shell import preload
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task
if sys.argv[1] == "preload":
    preload.load(["drug"])
register_offline_models(get_task("drug"))  # as a run's wiring does

async def calls():
    counts = []
    for _ in range(2):
        profile = cProfile.Profile()
        profile.enable()
        await LLMClient("pxp-offline/drug").complete([{"role": "user", "content": "Target: CCO"}])
        profile.disable()
        calls = pstats.Stats(profile).stats.items()  # pxp's and its libraries' own: the event loop's vary with timing
        counts.append(sum(n for (where, _, _), (_, n, *_) in calls if "/pxp_tui/" in where or "site-packages" in where))
    with open("counts.json", "w", encoding="utf-8") as out:  # a file: nothing else the process prints can mix in
        json.dump({"calls": counts, "litellm": "litellm" in sys.modules}, out)

asyncio.run(calls())
"""


@pytest.mark.slow
@pytest.mark.parametrize("before", ["preload", "nothing"])
def test_the_offline_runs_first_messages_never_wait_for_litellm(tmp_path: Path, before: str) -> None:
    """litellm's import takes seconds of CPU and its first call builds much of a call: the offline baseline answers
    without it, with or without the app's preload first, so an offline run's first message waits for neither. Its
    second call does no more work than its first (counted in calls of pxp's and its libraries' functions, not timed;
    the event loop's and the thread pool's own calls, left out, vary with when the worker thread's answer comes)."""
    import json
    import subprocess
    import sys

    from ..conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALL, before],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=240,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "PXP_IMAGES": "none"},
    )
    counts = tmp_path / "counts.json"
    said = f"exit code {done.returncode}; stdout: {done.stdout[-1000:]!r}; stderr: {done.stderr[-2000:]!r}"
    assert done.returncode == 0 and counts.exists(), said
    found = json.loads(counts.read_text(encoding="utf-8"))
    assert found["litellm"] is False, found  # neither the preload nor the two calls imported it
    first, second = found["calls"]
    assert second <= first, found


def app_rows(db_path: Path, session_id: int, j: int) -> dict[str, Any]:
    from pxp_harness.app_helpers import rows

    return rows(db_path, "SELECT latency_ms FROM messages WHERE session_id = ? AND j = ?", (session_id, j))[0]


# -- pictures kept, the next one drawn ahead ---------------------------------------------------------
def test_the_cache_keeps_the_most_recent_pictures_per_size() -> None:
    cache = PictureCache(size=2)
    small, large = Surface(10, 5, (10, 10), "halfcell"), Surface(20, 10, (20, 20), "halfcell")
    drawn: list[Surface] = []

    def draw(surface: Surface) -> None:
        drawn.append(surface)

    cache.draw("a", small, draw)
    cache.draw("a", small, draw)  # kept
    cache.draw("a", large, draw)  # another size: drawn
    cache.draw("b", small, draw)  # the oldest ("a" small) leaves
    assert drawn == [small, large, small]
    assert cache.lookup("a", large)[0] and cache.lookup("b", small)[0] and not cache.lookup("a", small)[0]


async def test_the_next_instances_picture_is_drawn_while_the_expert_answers_and_shown_at_once(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    CACHE.clear()
    task_class = type(get_task("drug"))
    real_draw = task_class.draw_instance
    drawn: dict[int, int] = {}

    def counting(self: Any, instance: Any, surface: Any) -> Any:
        drawn[instance.id] = drawn.get(instance.id, 0) + 1
        return real_draw(self, instance, surface)

    monkeypatch.setattr(task_class, "draw_instance", counting)

    from pxp_tui.app.session.screen import SessionScreen

    opened: list[tuple[int, int, bool, bool]] = []  # (instance, its drawings, image shown, "drawing…" shown)
    real_started = SessionScreen.on_session_started

    def started(self: Any, event: Any) -> None:
        real_started(self, event)
        picture = self.query_one("#instance-picture")
        status = picture.query_one(".picture-status", Static)
        opened.append((event.instance.id, drawn.get(event.instance.id, 0), bool(picture.query(".picture-image")), status.display))

    monkeypatch.setattr(SessionScreen, "on_session_started", started)

    run_id = make_run(db_path, limit=2)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        plan = screen.stored_run.plan
        task = screen.pxp_task
        picture = screen.query_one("#instance-picture")
        await wait_for(pilot, lambda: picture.surface is not None, "the first picture drawn")

        # while the expert thinks, the second instance is drawn for the sizes the first is shown at
        def prefetched() -> bool:
            running = [w for w in app.workers if w.group == "picture-prefetch" and w.is_running]
            return bool(drawn.get(plan[1])) and not running

        await wait_for(pilot, prefetched, "the next instance drawn ahead")
        ahead = drawn[plan[1]]
        next_instance = app_instance(db_path, plan[1])
        assert CACHE.lookup(instance_key(task, next_instance), picture.frame_surface())[0]
        await pilot.press("1", "ctrl+s")
        await wait_for(pilot, lambda: len(opened) == 2, "the second session")
    first, second = opened
    assert first[0] == plan[0] and second[0] == plan[1]
    # the second instance opened with its picture on screen, not drawn again, nothing drawing
    assert second[1:] == (ahead, True, False)


def app_instance(db_path: Path, instance_id: int) -> Any:
    from pxp_tui.blackboard import Blackboard

    with Blackboard.open(db_path, readonly=True) as board:
        return board.instances([instance_id])[0]


def test_nothing_is_drawn_ahead_when_pictures_are_off(monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    later: list[Any] = []

    class Widget:
        def call_after_refresh(self, callback: Any) -> None:
            later.append(callback)

    picture_cache.prefetch_next(Widget(), get_task("drug"), [1, 2], 0)  # type: ignore[arg-type]
    assert later == []


# -- the footer, updated in place ------------------------------------------------------------------------
async def test_the_footer_shows_the_keys_of_each_turn_without_mounting_them_again(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    run_id = make_run(db_path, limit=3)
    app = PXPApp(db_path, run_id=run_id)

    def footer(screen: Any) -> dict[str, tuple[bool, bool]]:
        """description -> (shown, enabled) of the footer's keys."""
        return {k.description: (k.display, not k.has_class("-disabled")) for k in screen.query(FooterKey)}

    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")  # a first session: every key of a session's states (its outcome's too) shown once
        screen = await expert_turn(pilot, app, j=2)
        await wait_for(pilot, lambda: footer(screen).get("Send") == (True, True), "Send enabled at the expert's turn")
        keys = {id(k) for k in screen.query(FooterKey)}
        assert footer(screen).get("Cancel machine call", (False, False))[0] is False  # only while the machine thinks
        await pilot.press("1", "ctrl+s")
        await expert_turn(pilot, app, j=2)  # the second session's first turn
        await wait_for(pilot, lambda: screen.exchange.order == 2, "the third session")
        await wait_for(pilot, lambda: footer(screen).get("Send") == (True, True), "Send enabled again")
        assert {id(k) for k in screen.query(FooterKey)} == keys  # the same keys, shown and hidden in place


async def test_the_footers_keys_keep_their_places_from_turn_to_turn_across_an_outcome(db_path: Path, monkeypatch) -> None:
    """The keys an outcome hides (g Guards, n Note, x Skip instance) came back at the footer's end after it: a
    keyboard user's keys moved once a run."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    app = PXPApp(db_path, run_id=make_run(db_path, limit=3))

    def shown(screen: Any) -> list[str]:
        return [k.description for k in screen.query(FooterKey) if k.display and not k.has_class("-command-palette")]

    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        await settled(pilot)  # the turn's keys in the footer
        first = shown(screen)
        assert "Guards" in first and "Send" in first and "Cancel machine call" not in first
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
        await settled(pilot)  # the outcome's keys
        assert "Guards" not in shown(screen)
        await pilot.press("enter")
        await expert_turn(pilot, app, j=2)
        await settled(pilot)  # the next turn's keys
        assert shown(screen) == first


@pytest.mark.slow
async def test_a_turn_does_not_send_the_x_ray_to_the_terminal_again(db_path: Path, monkeypatch, machine_gate) -> None:
    """The picture does not change between turns: the frames of a REFUTE step, the machine's spinner shown and
    hidden included, leave its cells alone (over ssh each half-cell X-ray is tens of kilobytes; the screen's own
    repaint, on a focus change or the header's title, sent every cell again, and so did a spinner that pushed the
    picture up a row)."""
    from pxp_tui.app.picture.halfcell import HalfcellView
    from pxp_tui.app.session.widgets.thinking import Thinking

    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    run_id = make_run(db_path, task="rad", limit=3)
    app = PXPApp(db_path, run_id=run_id)
    sent: list[Any] = []

    def frame(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            sent.append(renderable)

    on_terminal_writes(monkeypatch, PXPApp, frame)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await expert_turn(pilot, app, j=2)
        await wait_for(pilot, lambda: bool(screen.query(HalfcellView)), "the X-ray drawn")
        await pilot.press("2")  # REFUTE
        await pilot.pause()
        picture = screen.query_one(HalfcellView).region
        sent.clear()
        machine_gate.close()  # the machine thinks long enough for its spinner to show
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.query_one(Thinking).display, "the spinner")
        await pilot.pause()
        machine_gate.open()
        await expert_turn(pilot, app, j=4)
        await pilot.pause()
        assert screen.query_one(HalfcellView).region == picture  # the same picture, in the same place
    assert sent, "no frame after the send"
    for update in sent:
        assert not isinstance(update, LayoutUpdate), "a full repaint of the screen"
        assert isinstance(update, ChopsUpdate)
        for y, x1, x2 in update.spans:
            assert not (picture.y <= y < picture.bottom and x1 < picture.right and x2 > picture.x), (y, x1, x2)


async def test_the_spinner_shows_only_for_work_that_takes_a_while() -> None:
    from textual.app import App, ComposeResult

    from pxp_tui.app.session.widgets.thinking import APPEAR_AFTER, Thinking

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Thinking(id="spin")
            yield Thinking(id="other")

    app = One()
    async with app.run_test() as pilot:
        spin, other = app.query_one("#spin", Thinking), app.query_one("#other", Thinking)
        spin.start("offline is thinking…")
        spin.stop()  # a reply within a frame: never shown
        other.start("a slow one")  # started after it: once it shows, the first one's APPEAR_AFTER has passed too
        await wait_for(pilot, lambda: other.display, f"the slow one's spinner, after {APPEAR_AFTER} s")
        await pilot.pause()  # and what its timer would have sent meanwhile, handled
        assert not spin.display
        other.stop()
        spin.start("offline is thinking…")
        assert not spin.display and "offline is thinking…" in str(spin.render())
        await wait_for(pilot, lambda: spin.display, f"the spinner, after {APPEAR_AFTER} s")  # a slow one: shown, with its text
        spin.stop()
        assert not spin.display
        spin.start("offline is thinking…")
        spin.stop()
        spin._show()  # its timer fired just before the stop, under load: the callback comes late
        assert not spin.display
