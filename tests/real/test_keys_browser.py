"""Every key typed in the browser (``pxp serve``) lands where it was typed: the start form filled by keys at its first
frame, or as the page loads (a name of 200 characters, n, the first N instances, N), and the expert's answers are
stored exactly. :func:`experts_at_once` opens any number of tabs at once, each expert typing their own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pxp_harness.browser import PATIENCE, VIEWPORT, Served, Tab, db_rows, launch, needs_browser

pytestmark = [pytest.mark.slow, needs_browser]

#: a name of 200 characters (letters, digits, punctuation, spaces), the expert's number at its start
BODY = "-rad O'Brien, M.D. (chest) #7; "


def name_of(expert: int) -> str:
    return (f"expert {expert}{BODY}" * 8)[:199] + "."


#: the expert's answer at message 2: REFUTE, with a prediction (reactants, SMILES) and an explanation of their own
PREDICTION = "CC(=O)Cl.Nc1ccc(O)cc1"


def explanation_of(expert: int) -> str:
    return f"Expert {expert}: acylate 4-aminophenol with acetyl chloride, base to take up the HCl; N before O."


async def fill_the_form(tab: Tab, name: str, n: str, first: str, *, at_once: bool = False) -> None:
    """At the form's first frame (or, ``at_once``, as soon as the page has loaded, before the app has drawn anything),
    keys only: back to the name (five fields up from Start), the name, on to n, up to the instances (five up), "the
    first N" in its list, on to N, ctrl+s."""
    if not at_once:
        await tab.wait(r"Start \(enter\)")
    await tab.keys(*["Shift+Tab"] * 5)
    await tab.type(name)
    await tab.keys("Tab")
    await tab.type(n)
    await tab.keys(*["Shift+Tab"] * 5, "Enter", "ArrowDown", "Enter", "Tab")
    await tab.type(first)
    await tab.keys("Control+s")


async def answer(tab: Tab, n: str, explanation: str) -> None:
    """At the expert's first turn: 2 (REFUTE; the prediction field takes the focus, its text selected), the prediction,
    enter (on to the explanation), ctrl+a and the explanation over the machine's, ctrl+s; until the machine's reply."""
    await tab.wait(rf"session 1 of 2 · message 2 of {n}(?s:.*)Your turn")
    await tab.keys("2")
    await tab.type(PREDICTION)
    await tab.keys("Enter", "Control+a")
    await tab.type(explanation)
    await tab.keys("Control+s")
    await tab.wait(rf"session 1 of 2 · message [34] of {n}")


def stored(db: Path) -> list[tuple]:
    return db_rows(
        db,
        "SELECT r.expert, r.n, json_extract(r.options, '$.limit'), m.tag, m.prediction, m.explanation FROM runs r "
        "LEFT JOIN data d ON d.run_id = r.id LEFT JOIN messages m ON m.session_id = d.session_id AND m.j = 2 "
        "ORDER BY r.expert",
    )


async def experts_at_once(tmp_path: Path, experts: int, *, at_once: bool = False) -> None:
    """``experts`` tabs opened at once, each expert filling the form and answering by keys; every value stored."""
    from playwright.async_api import async_playwright

    db = tmp_path / "sessions.db"
    served = Served(db, tmp_path)
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            contexts = [await browser.new_context(viewport=VIEWPORT) for _ in range(experts)]
            for context in contexts:  # the pages load at once, beside the apps starting
                context.set_default_navigation_timeout(experts * PATIENCE * 1000)
            tabs = await asyncio.gather(*(Tab.open(context, served.url) for context in contexts))
            for tab in tabs:
                tab.patience = experts * PATIENCE  # the apps start, import and answer at once, beside the browser
            ns = [str(5 + expert % 5) for expert in range(experts)]
            await asyncio.gather(
                *(fill_the_form(tab, name_of(expert), ns[expert], "2", at_once=at_once) for expert, tab in enumerate(tabs))
            )
            await asyncio.gather(*(answer(tab, ns[expert], explanation_of(expert)) for expert, tab in enumerate(tabs)))
            await browser.close()
    finally:
        assert served.stop() == 0
    expected = sorted(
        (name_of(expert), int(ns[expert]), 2, "REFUTE", PREDICTION, explanation_of(expert)) for expert in range(experts)
    )
    assert stored(db) == expected


@pytest.mark.parametrize("at_once", [False, True], ids=["at the first frame", "as the page loads"])
async def test_an_expert_s_keys_in_the_browser_are_stored_exactly(tmp_path: Path, at_once: bool) -> None:
    """Typed as the page loads, before the app has drawn anything: the page focused no terminal (the keys went nowhere
    until a click), and the app, started without the focus, had focused no field (a shift+tab went to the last)."""
    await experts_at_once(tmp_path, 1, at_once=at_once)
