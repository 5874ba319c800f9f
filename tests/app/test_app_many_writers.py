"""The app and the review beside other writers of their file: a send that meets a lock, refreshes that never overlap."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest
from textual.widgets import Static

from pxp_harness.app_helpers import expert_turn, live_app, messages, type_answer, wait_for
from pxp_tui.app.review import ReviewApp
from pxp_tui.app.session.failure import FailureScreen
from pxp_tui.app.session.widgets.tag_picker import TagPicker
from pxp_tui.blackboard import review
from pxp_tui.protocol import Tag

from .test_many_writers import finish, holder

MINE = "The acid chloride is hydrolysed, not the ester: my own reasoning, typed and not yet stored."


async def test_retry_after_the_file_stayed_locked_keeps_the_unsent_answer_as_typed(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    monkeypatch.setenv("PXP_LOCK_WAIT", "0.3")  # the seconds a write waits for another program's lock
    async with live_app(db_path) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")  # REFUTE
        await type_answer(pilot, app, prediction="CCO", explanation=MINE)
        outside = holder(db_path, "stdin")  # another program holds the file locked past the wait
        try:
            app.screen.query_one(TagPicker).request_send()
            dialog = await wait_for(pilot, lambda: isinstance(app.screen, FailureScreen) and app.screen, "the dialog")
            cause = dialog.cause
            # says how long it waited (the wait is bounded by the test's PXP_LOCK_WAIT; how long, the machine decides)
            assert "another program holds the file locked" in cause and re.search(r"pxp waited \d+(\.\d+)? s", cause)
        finally:
            await asyncio.to_thread(finish, outside)
        await pilot.press("r")  # Retry
        screen = await expert_turn(pilot, app, j=2)
        answer = screen.query_one(TagPicker).answer()
        assert (answer.tag, answer.prediction, answer.explanation) == (Tag.REFUTE, "CCO", MINE)
        screen.query_one(TagPicker).request_send()
        await wait_for(pilot, lambda: any(m[1] == 2 for m in messages(db_path, run_id)), "the answer stored")
    assert (0, 2, "human", "REFUTE", "CCO") in messages(db_path, run_id)


async def test_the_reviews_refreshes_never_read_at_once_on_its_connection(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from .test_many_writers import board_with_run

    board_with_run(db_path)
    gate, running, most = threading.Event(), [0], [0]
    real = review.runs

    def slow_runs(board, *args, **kwargs):  # the first read is held until the test has asked for more
        running[0] += 1
        most[0] = max(most[0], running[0])
        try:
            gate.wait(60)
            return real(board, *args, **kwargs)
        finally:
            running[0] -= 1

    monkeypatch.setattr(review, "runs", slow_runs)
    async with ReviewApp(db_path).run_test(size=(120, 30)) as pilot:
        screen = await wait_for(pilot, lambda: getattr(app_screen(pilot), "board", None) and app_screen(pilot), "the runs")
        await wait_for(pilot, lambda: running[0] == 1, "the first read")
        for _ in range(3):
            await pilot.press("f5")  # refresh, while the first read is still on its way
        await wait_for(pilot, lambda: screen.board.pending == 4 or most[0] > 1, "the refreshes asked for")
        gate.set()
        await wait_for(pilot, lambda: screen.board.pending == 0, "every read done")
        assert "1 run(s)" in str(screen.query_one("#runs-status", Static).render())
    assert most[0] == 1  # one at a time, on the one connection


def app_screen(pilot):
    return pilot.app.screen
