"""``settled`` (pxp_harness/app_helpers.py), what a snapshot waits for, leaves nothing on the screen for a timer to change:
with Textual's one-shot timers made slower than the machine (as on a machine faster than the app's timers), the
screen it settles on is the one the timers lead to, not the one before them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message_pump import MessagePump
from textual.widgets import Static

from pxp_harness.app_helpers import expert_turn, live_app, settled, shown
from pxp_tui.app.picture.widget import Picture

#: how much slower than asked each one-shot timer fires
SLOWER = 20


@pytest.fixture
def slow_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    set_timer = MessagePump.set_timer

    def slower(self, delay, callback=None, *, name=None, pause=False):
        return set_timer(self, delay * SLOWER, callback, name=name, pause=pause)

    monkeypatch.setattr(MessagePump, "set_timer", slower)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_the_drug_turn_settles_with_the_machine_s_proposal_drawn_not_drawing(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, slow_timers: None, size: tuple[int, int]
) -> None:
    """The machine's proposal is drawn once its frame is laid out and a resize settles (a timer, not a worker): a
    snapshot taken before showed "drawing…" where the picture, or why there is none, belongs."""
    monkeypatch.setenv("PXP_IMAGES", "none")  # as the snapshots: the status line says why there is no picture
    async with live_app(db_path, size=size) as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        await settled(pilot)
        said = {
            picture.id: str(picture.query_one(".picture-status", Static).render())
            for picture in app.screen.query(Picture)
            if shown(picture)
        }
        assert said == {
            "instance-picture": "pictures are off (PXP_IMAGES=none)",
            "prediction-picture": "pictures are off (PXP_IMAGES=none)",
        }
