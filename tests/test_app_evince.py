"""Issue 10 in the app: a machine-machine run watched in the session screen shows each agent's distribution as
bars under its message and the session's EVINCE measures, round by round, in the metrics pane."""

from __future__ import annotations

import pytest

from pxp_tui.app.pxp_app import PXPApp
from pxp_tui.app.widgets.distribution_bars import bar, bars_content
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.runs.config import RunConfig
from pxp_tui.runs.create import create_run

from .app_helpers import rows, session_screen, wait_for


def test_bars_in_eighths_and_the_fallback_marked() -> None:
    assert bar(1.0, 4) == "████" and bar(0.0, 4) == "" and bar(0.5, 3) == "█▌"
    text = str(bars_content({"distribution": '{"Pneumonia": 0.25, "Atelectasis": 0.75}', "distribution_fallback": 1}))
    assert text.index("Atelectasis") < text.index("Pneumonia") and "75%" in text and "one-hot" in text
    assert bars_content({}) is None


@pytest.mark.slow
async def test_two_offline_machines_are_watched_with_their_distributions_and_measures(db_path) -> None:
    config = RunConfig(task="rad", human_kind=HumanKind.MODEL, human_model="offline", top_k=5, contentiousness=0.9, limit=1)
    with Blackboard.open(db_path) as board:
        run_id = create_run(board, config)
    app = PXPApp(db_path, run_id=run_id)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: (s := session_screen(app)) and s.state == "done" and s, "the run")
        assert not screen.query_one("TagPicker").display  # the other model answers: the expert watches
        entries = [str(e.render()) for e in screen.query_one("Conversation").query(".entry")]
        assert entries and all("%" in e and "█" in e for e in entries)  # every message has its bars
        information = screen.query_one("#metrics-information")
        assert information.has_class("-shown")
        table = str(screen.query_one("#information-rounds").render())
        assert "Information, this session" in table and "WD" in table and "NMI" in table
    stored = rows(db_path, "SELECT COUNT(*) AS n FROM round_information WHERE run_id = ?", (run_id,))
    assert stored[0]["n"] == table.count("\n") - 1  # one line per stored round
