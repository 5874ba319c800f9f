"""The header and the footer are never a state behind: the frame that first shows a session's outcome, the next
instance after it, or the expert's first turn of a reopened run shows their own header and keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown, session_screen, wait_for
from pxp_harness.internals import on_frames, screen_lines
from pxp_tui.app.shell.pxp_app import PXPApp


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def watch(screen: Any) -> list[tuple[str, str, str]]:
    """Every frame of ``screen`` from now on, as (what it shows, header, footer)."""
    frames: list[tuple[str, str, str]] = []

    def paint(real: Any) -> None:
        real()
        lines = screen_lines(screen)
        body = "\n".join(lines[1:-1])
        shown = "outcome" if "the next instance" in body else "turn" if "Your turn" in body else "other"
        frames.append((shown, lines[0], lines[-1]))

    on_frames(screen, paint)
    return frames


def check(frames: list[tuple[str, str, str]], message: int) -> None:
    outcomes = [f for f in frames if f[0] == "outcome"]
    turns = [f for f in frames if f[0] == "turn"]
    for _, header, footer in outcomes:
        assert "Next instance" in footer and "Skip" not in footer and "Guards" not in footer, footer
        assert "message 3 of 10" in header, header  # the session's last message, not the turn before it
    for _, header, footer in turns:
        assert "Guards" in footer and "Next instance" not in footer and "Cancel machine call" not in footer, footer
        assert f"message {message} of 10" in header, header


async def test_an_outcome_and_the_next_instance_come_with_their_own_header_and_keys(db_path: Path) -> None:
    async with live_app(db_path, limit=2) as (app, pilot, _):
        screen = await expert_turn(pilot, app, j=2)
        frames = watch(screen)
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
        await wait_for(pilot, lambda: frames and frames[-1][0] == "outcome", "the outcome painted")
        check(frames, 2)
        frames.clear()
        await pilot.press("enter")  # the next instance
        await expert_turn(pilot, app, j=2)
        await wait_for(pilot, lambda: frames and frames[-1][0] == "turn", "the next turn painted")
        assert "session 2 of 2" in frames[-1][1]
        check(frames, 2)
        assert all("session 2 of 2" in header for shown, header, _ in frames if shown == "turn")


async def test_the_first_turn_of_a_reopened_run_comes_with_its_own_header_and_keys(db_path: Path) -> None:
    async with live_app(db_path, limit=2) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
    again = PXPApp(db_path, run_id=run_id)
    async with again.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: session_screen(again), "the session screen")
        frames = watch(screen)
        await expert_turn(pilot, again, j=2)
        await wait_for(pilot, lambda: frames and frames[-1][0] == "turn", "the turn painted")
        check(frames, 2)
