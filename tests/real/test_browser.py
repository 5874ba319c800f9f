"""``pxp serve`` in headless Chromium: an expert's RAD session in a browser tab, and four experts at once.

The browser is Debian's ``chromium`` driven by Playwright (see pxp_harness/browser.py); skipped where either is absent.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image

from pxp_harness.browser import (
    PATIENCE,
    TURN,
    VIEWPORT,
    Served,
    Tab,
    db_rows,
    launch,
    needs_browser,
    refute,
    start_rad_run,
    until_the_outcome,
)
from pxp_harness.terminal import cmdline, gone

pytestmark = [pytest.mark.slow, needs_browser]

READING = "Right upper lobe consolidation with air bronchograms: pneumonia."


def app_processes(db: Path) -> list[int]:
    """The ``pxp app --db DB`` processes running (textual-serve starts one per tab, through a shell)."""
    found = []
    for entry in Path("/proc").iterdir():
        words = cmdline(int(entry.name)).split() if entry.name.isdigit() else []
        if words[1:4] == ["-m", "pxp_tui", "app"] and words[-1] == str(db):
            found.append(int(entry.name))
    return found


def human_messages(db: Path) -> list[tuple]:
    return db_rows(
        db,
        "SELECT r.id, d.ord, m.j, m.tag, m.prediction, m.explanation FROM messages m "
        "JOIN data d USING (session_id) JOIN runs r ON r.id = d.run_id WHERE m.sender = 'human' "
        "ORDER BY r.id, d.ord, m.j",
    )


async def rad_session_then_quit(tab: Tab, reading: str, close: bool = False) -> None:
    """Session 1: REFUTE with the expert's own label and words, then RATIFY what the machine revised;
    session 2: RATIFY at once; then q (the run is paused, to be resumed). With ``close``, the expert
    closes the tab at session 2's turn instead (its app is told to quit: the run is paused too)."""
    await refute(tab, "Pneumonia", reading)
    await until_the_outcome(tab, 1)
    await tab.keys("Enter")  # the next instance
    await tab.wait(TURN.format(session=2, j=2))
    if close:
        await tab.page.close()
        return
    await tab.keys("1")
    await until_the_outcome(tab, 2)
    await tab.keys("q")
    await tab.page.get_by_text("Session ended.").wait_for(timeout=tab.patience * 1000)  # the tab's app has exited


async def test_a_rad_session_in_the_browser_lands_in_the_blackboard_and_o_opens_the_original(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    db = tmp_path / "sessions.db"
    served = Served(db, tmp_path)
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            context = await browser.new_context(viewport=VIEWPORT)
            tab = await Tab.open(context, served.url)
            await start_rad_run(tab)
            assert "v Open" in tab.text()  # the footer names what v does (its first word where the keys do not all fit)
            assert "v: full size in a new tab" not in tab.text()  # the picture's header: pixels here, no excuse

            await tab.keys("v")  # the original picture, full size, in a new tab of the browser
            picture = await tab.new_tab()
            await picture.wait_for_load_state(timeout=PATIENCE * 1000)  # a bound against hanging, as every wait
            shown = await picture.evaluate("[document.images[0].naturalWidth, document.images[0].naturalHeight]")
            ((stored,),) = db_rows(db, "SELECT data FROM images JOIN instances ON image_sha = sha256 WHERE key = 'phantom_01'")
            with Image.open(io.BytesIO(stored)) as original:
                assert tuple(shown) == original.size == (256, 256)
            assert picture.url.startswith(served.url + "download/")
            await tab.wait("Opened in a new browser tab: demo-rad-phantom_01.png")
            await picture.close()

            await rad_session_then_quit(tab, READING)
            await tab.screenshot(tmp_path / "ended.png")
            assert tab.refused == []  # the page asked nothing of any other site
            await browser.close()
    finally:
        assert served.stop() == 0

    assert [row[1:] for row in human_messages(db)] == [
        (0, 2, "REFUTE", "Pneumonia", READING),
        (0, 4, "RATIFY", "Pneumonia", READING),
        (1, 2, "RATIFY", "Pneumonia", db_rows(db, "SELECT explanation FROM messages WHERE j = 1 ORDER BY session_id")[1][0]),
    ]
    assert db_rows(db, "SELECT ord, stop_reason FROM data WHERE stop_reason IS NOT NULL ORDER BY ord") == [
        (0, "ratified"),
        (1, "ratified"),
    ]
    assert db_rows(db, "SELECT status, human_kind FROM runs") == [("paused", "live")]


async def test_four_experts_in_four_tabs_at_once_lose_nothing_on_one_blackboard(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    db = tmp_path / "sessions.db"
    readings = [f"Expert {n}: {READING}" for n in range(1, 5)]
    served = Served(db, tmp_path)
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            contexts = [await browser.new_context(viewport=VIEWPORT) for _ in readings]  # four browsers, one tab each
            tabs = await asyncio.gather(*(Tab.open(context, served.url) for context in contexts))
            for tab in tabs:
                tab.patience = 4 * PATIENCE  # four apps start, import and answer at once, beside the browser
            await asyncio.gather(*(start_rad_run(tab) for tab in tabs))
            apps = app_processes(db)
            assert len(apps) == 4  # one app process per tab, all on the one file
            # the fourth expert closes the tab mid-run; the others quit with q after two sessions
            await asyncio.gather(
                *(
                    rad_session_then_quit(tab, reading, n == 3)
                    for n, (tab, reading) in enumerate(zip(tabs, readings, strict=True))
                )
            )
            assert all(await asyncio.gather(*(asyncio.to_thread(gone, pid) for pid in apps)))  # every app has exited
            await browser.close()
    finally:
        assert served.stop() == 0

    rows = human_messages(db)
    runs = sorted({row[0] for row in rows})
    assert len(runs) == 4
    refutes = sorted(row[5] for row in rows if row[3] == "REFUTE")
    assert refutes == readings  # each expert's own words, in their own run
    closed = next(row[0] for row in rows if row[5] == readings[3])
    for run_id in runs:
        assert [row[1:5] for row in rows if row[0] == run_id] == [
            (0, 2, "REFUTE", "Pneumonia"),
            (0, 4, "RATIFY", "Pneumonia"),
            *([] if run_id == closed else [(1, 2, "RATIFY", "Pneumonia")]),
        ]
    counts = "SELECT d.run_id, d.ord, COUNT(*) FROM messages m JOIN data d USING (session_id) WHERE d.ord < 2 GROUP BY 1, 2"
    assert db_rows(db, counts) == [
        (run_id, ord_, 1 if (run_id, ord_) == (closed, 1) else n) for run_id in runs for ord_, n in ((0, 5), (1, 3))
    ]  # the closed tab's run: session 2's first message, shown when the tab closed
    later = "SELECT DISTINCT d.ord, m.j, m.sender FROM messages m JOIN data d USING (session_id) WHERE d.ord >= 2"
    assert set(db_rows(db, later)) <= {(2, 1, "machine")}  # at most session 3's first message, asked ahead
    assert db_rows(db, "SELECT status, COUNT(*) FROM runs GROUP BY status") == [("paused", 4)]
