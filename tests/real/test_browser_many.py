"""Eight experts at once on one served blackboard, each in a browser tab of their own: every answer stored exactly.

Eight browser contexts (eight experts' browsers) open ``pxp serve``'s printed address at once, each starts a RAD
run and answers five turns (two REFUTEs in their own words, three RATIFYs), sending with alt+s, the key the
served footer shows. Every message lands in the expert's own run, word for word; no tab ever shows a lock.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from pxp_harness.browser import PATIENCE, TURN, VIEWPORT, Served, Tab, db_rows, launch, needs_browser, refute

from .test_browser import human_messages

pytestmark = [pytest.mark.slow, needs_browser]

EXPERTS = 8
OUTCOME = r"enter: the next instance"


def reading(expert: int, session: int) -> str:
    return f"Expert {expert}, case {session}: right upper lobe consolidation with air bronchograms, pneumonia."


async def wait(tab: Tab, pattern: str) -> str:
    """:meth:`Tab.wait`, and no tab shows a lock (another expert's write in the way)."""
    text = await tab.wait(pattern)
    assert "locked" not in text, text
    return text


async def five_turns(tab: Tab, expert: int) -> None:
    """Start a RAD run on the demo; sessions 1 and 2: REFUTE in the expert's words, then RATIFY the machine's
    revision; session 3: RATIFY at once; then q."""
    await wait(tab, r"Task\s+DRUG")
    await tab.click("DRUG")
    await wait(tab, "RAD")
    await tab.click("RAD")
    await wait(tab, r"Task\s+RAD")
    assert "alt+s" in tab.text()  # the served key, named on the start screen
    await tab.keys("Alt+s")  # the start screen's ctrl+s: the browser's "save page"
    for session in (1, 2):
        await wait(tab, TURN.format(session=session, j=2))
        await refute(tab, "Pneumonia", reading(expert, session))
        await tab.keys("Alt+s")
        await wait(tab, TURN.format(session=session, j=4))
        await tab.keys("1", "Alt+s")
        await wait(tab, OUTCOME)
        await tab.keys("Enter")
    await wait(tab, TURN.format(session=3, j=2))
    await tab.keys("1", "Alt+s")
    await wait(tab, rf"{OUTCOME}|{TURN.format(session=3, j=4)}")
    await tab.keys("q")
    await tab.page.get_by_text("Session ended.").wait_for(timeout=tab.patience * 1000)


async def test_eight_experts_in_eight_tabs_at_once_each_answer_stored_exactly(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    db = tmp_path / "sessions.db"
    served = Served(db, tmp_path)
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            contexts = [await browser.new_context(viewport=VIEWPORT) for _ in range(EXPERTS)]
            for context in contexts:  # eight pages load at once beside eight apps starting: more than Playwright's 30 s
                context.set_default_timeout(EXPERTS * PATIENCE * 1000)
            tabs = await asyncio.gather(*(Tab.open(context, served.url) for context in contexts))
            for tab in tabs:
                tab.patience = EXPERTS * PATIENCE  # eight apps start, import and answer at once beside the browser
            await asyncio.gather(*(five_turns(tab, expert) for expert, tab in enumerate(tabs, 1)))
            await browser.close()
    finally:
        assert served.stop() == 0

    rows = human_messages(db)
    runs = sorted({row[0] for row in rows})
    assert len(runs) == EXPERTS  # a run each
    machine_sql = "SELECT d.run_id, d.ord, m.j, m.prediction, m.explanation FROM messages m JOIN data d USING (session_id) WHERE m.j IN (1, 3)"
    machine = {(run_id, ord_, j): (said, why) for run_id, ord_, j, said, why in db_rows(db, machine_sql)}
    for run_id in runs:
        mine = [row[1:] for row in rows if row[0] == run_id]
        expert = int(re.match(r"Expert (\d+),", mine[0][4])[1])  # type: ignore[index]
        # RATIFY sends the machine's words: its prediction and explanation of the message ratified
        assert mine == [
            (0, 2, "REFUTE", "Pneumonia", reading(expert, 1)),
            (0, 4, "RATIFY", *machine[(run_id, 0, 3)]),
            (1, 2, "REFUTE", "Pneumonia", reading(expert, 2)),
            (1, 4, "RATIFY", *machine[(run_id, 1, 3)]),
            (2, 2, "RATIFY", *machine[(run_id, 2, 1)]),
        ]
        assert [machine[(run_id, s, 3)][0] for s in (0, 1)] == ["Pneumonia", "Pneumonia"]  # it took the expert's label
    assert sorted(row[5] for row in rows if row[2] == 2 and row[1] < 2) == sorted(
        reading(expert, session) for expert in range(1, EXPERTS + 1) for session in (1, 2)
    )
    assert db_rows(db, "SELECT status, COUNT(*) FROM runs GROUP BY status") == [("paused", EXPERTS)]
