"""One stop decision: the engine decides whether a session stops after each message and tells its listeners with
the message; the live screen shows that decision and never applies the stop rule again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown
from pxp_harness.internals import screen_lines
from pxp_tui.blackboard import Blackboard
from pxp_tui.engine import Observer, RunSpec, interact
from pxp_tui.protocol import StopReason

from ..pure.test_engine import scripted_pair, setup_run


class Heard(Observer):
    def __init__(self) -> None:
        self.heard: list[tuple[int, int, StopReason | None]] = []

    def message_recorded(self, message: Any, stop: StopReason | None) -> None:
        self.heard.append((message.session_id, message.j, stop))


async def test_the_observer_hears_each_message_with_the_engines_decision_the_blackboard_stores() -> None:
    sessions = [
        ["INIT", "RATIFY", "RATIFY"],
        ["INIT", "RATIFY", "REFUTE", "REFUTE", "RATIFY", "RATIFY"],  # the latest tags, not ever
        ["INIT", "REFUTE", "REFUTE", "REJECT"],
        ["INIT", "REFUTE", "REVISE", "REFUTE"],  # the bound
    ]
    board = Blackboard.memory()
    run_id, instances = setup_run(board, len(sessions))
    machine, human = scripted_pair(sessions)
    observer = Heard()
    await interact(RunSpec(run_id, n=4, k=3), instances, machine, human, board, observer=observer)
    stored = {r["session_id"]: r["stop_reason"] for r in board.db.query("SELECT session_id, stop_reason FROM data")}
    by_session: dict[int, list[StopReason | None]] = {}
    for session_id, _, stop in observer.heard:
        by_session.setdefault(session_id, []).append(stop)
    assert [len(stops) for stops in by_session.values()] == [3, 4, 4, 4]
    for session_id, stops in by_session.items():
        assert stops[:-1] == [None] * (len(stops) - 1)  # the session went on after every message but its last
        assert stops[-1] is not None and stops[-1].value == stored[session_id]
    assert [stops[-1] for stops in by_session.values()] == [
        StopReason.RATIFIED,
        StopReason.BOUND,  # n = 4: the RATIFY pair at 5 and 6 never comes
        StopReason.REJECTED,
        StopReason.BOUND,
    ]


async def test_the_screen_shows_the_engines_decision_where_its_rule_says_to_stop(db_path: Path, monkeypatch) -> None:
    """An engine whose rule stops every session after the expert's first message (not the protocol's): the screen
    follows it, since it shows the decision carried with the message instead of deciding again."""
    import sys

    engine = sys.modules["pxp_tui.engine.interact"]  # the module (the package's ``interact`` is its function)
    monkeypatch.setattr(engine, "_stop", lambda spec, message, session, latest: StopReason.BOUND if message.j == 2 else None)
    monkeypatch.setenv("PXP_IMAGES", "none")
    async with live_app(db_path, limit=1) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")  # REFUTE: by the protocol's rule the session goes on to message 3
        await pilot.press("ctrl+s")
        await outcome_shown(pilot, app)
        assert screen.exchange.stop is StopReason.BOUND and screen.exchange.next_sender is None
        await pilot.pause()
        header = screen_lines(screen)[0]
        assert "message 2 of" in header, header  # the session's last message, not a message 3 to come
