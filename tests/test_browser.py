"""``pxp serve`` in headless Chromium: an expert's RAD session in a browser tab, and four experts at once.

The browser is Debian's ``chromium`` driven by Playwright (see tests/browser.py); skipped where either is absent.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image

from .browser import (
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
from .terminal import children, cmdline

pytestmark = [pytest.mark.slow, needs_browser]

READING = "Right upper lobe consolidation with air bronchograms: pneumonia."


def human_messages(db: Path) -> list[tuple]:
    return db_rows(
        db,
        "SELECT r.id, d.ord, m.j, m.tag, m.prediction, m.explanation FROM messages m "
        "JOIN data d USING (session_id) JOIN runs r ON r.id = d.run_id WHERE m.sender = 'human' "
        "ORDER BY r.id, d.ord, m.j",
    )


async def rad_session_then_quit(tab: Tab, reading: str) -> None:
    """Session 1: REFUTE with the expert's own label and words, then RATIFY what the machine revised;
    session 2: RATIFY at once; then q (the run is paused, to be resumed)."""
    await refute(tab, "Pneumonia", reading)
    await until_the_outcome(tab, 1)
    await tab.keys("n")
    await tab.wait(TURN.format(session=2, j=2))
    await tab.keys("1")
    await until_the_outcome(tab, 2)
    await tab.keys("q")
    await tab.page.get_by_text("Session ended.").wait_for(timeout=90_000)  # the tab's app has exited


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
            assert "o Open in new tab" in tab.text()  # the footer says what o does here

            await tab.keys("o")  # the original picture, full size, in a new tab of the browser
            picture = await tab.new_tab()
            await picture.wait_for_load_state()
            shown = await picture.evaluate("[document.images[0].naturalWidth, document.images[0].naturalHeight]")
            ((stored,),) = db_rows(
                db, "SELECT data FROM images JOIN instances ON image_sha = sha256 WHERE key = 'phantom_01'"
            )
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
            await asyncio.gather(*(start_rad_run(tab) for tab in tabs))
            apps = [pid for pid in children(served.process.pid) if "pxp_tui app" in cmdline(pid)]
            assert len(apps) == 4  # one app process per tab, all on the one file
            await asyncio.gather(*(rad_session_then_quit(tab, reading) for tab, reading in zip(tabs, readings, strict=True)))
            await browser.close()
    finally:
        assert served.stop() == 0

    rows = human_messages(db)
    runs = sorted({row[0] for row in rows})
    assert len(runs) == 4
    refutes = sorted(row[5] for row in rows if row[3] == "REFUTE")
    assert refutes == readings  # each expert's own words, in their own run
    for run_id in runs:
        assert [row[1:5] for row in rows if row[0] == run_id] == [
            (0, 2, "REFUTE", "Pneumonia"),
            (0, 4, "RATIFY", "Pneumonia"),
            (1, 2, "RATIFY", "Pneumonia"),
        ]
    assert db_rows(db, "SELECT COUNT(*) FROM messages") == [(4 * 9,)]  # 5 + 3 messages, and session 3's INIT
    assert db_rows(db, "SELECT status, COUNT(*) FROM runs GROUP BY status") == [("paused", 4)]
