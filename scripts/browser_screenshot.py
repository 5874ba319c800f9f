"""Regenerate the browser screenshots in docs/: a RAD session served by ``pxp serve``, in headless Chromium.

    python scripts/browser_screenshot.py [--out docs] [--data ../shared/data/interact] [--demo]

Runs the real ``pxp serve`` on a fresh blackboard and drives it in Debian's Chromium (Playwright, as
tests/real/test_browser.py does) at 1280x800, a common laptop window. With the papers' X-rays found under
``--data`` (``train_xray_data.csv``) the session is on their first case, case_1; otherwise, or with
``--demo``, on the bundled phantoms. Writes ``browser-rad-1280x800.png`` (the expert's turn, their own
explanation typed) and ``browser-rad-picture-1280x800.png`` (the X-ray full-screen, f).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pxp_harness.browser import PXP, TURN, VIEWPORT, Served, Tab, launch, refute, start_rad_run, why_no_browser  # noqa: E402

EXPLANATION = "A round opacity against the pleura, right lower zone, with pleural fluid: round atelectasis."


async def shoot(out: Path, data: Path | None) -> None:
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        db = home / "sessions.db"
        dataset = None
        if data is not None:
            dataset = "train_xray_data"
            subprocess.run([str(PXP), "import", "rad", str(data / f"{dataset}.csv"), "--db", str(db)], check=True)
        served = Served(db, home)
        try:
            async with async_playwright() as playwright:
                browser = await launch(playwright)
                tab = await Tab.open(await browser.new_context(viewport=VIEWPORT), served.url)
                await start_rad_run(tab, dataset)
                await refute(tab, "Atelectasis", EXPLANATION, tag="3")  # REVISE: the label kept, the expert's own words
                await tab.screenshot(out / "browser-rad-1280x800.png")
                await tab.keys("Escape")  # to the tag list, whose keys the footer then shows
                await tab.wait(r"\bf Picture\b")
                await tab.keys("f")
                await tab.wait("esc Back")  # the full-screen picture's footer
                await tab.screenshot(out / "browser-rad-picture-1280x800.png")
                await tab.keys("Escape")
                await tab.wait(TURN.format(session=1, j=2))
                await browser.close()
        finally:
            served.stop()
    print(f"wrote {out / 'browser-rad-1280x800.png'} and {out / 'browser-rad-picture-1280x800.png'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="the folder to write to (default: docs)")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("PXP_SHARED_DATA", ROOT.parent / "shared" / "data" / "interact")),
        help="the papers' data folder (default: $PXP_SHARED_DATA, else ../shared/data/interact)",
    )
    parser.add_argument("--demo", action="store_true", help="the bundled phantoms, even where the papers' X-rays are")
    args = parser.parse_args()
    reason = why_no_browser()
    if reason:
        print(f"browser_screenshot: {reason}", file=sys.stderr)
        return 1
    data = None if args.demo or not (args.data / "train_xray_data.csv").exists() else args.data
    asyncio.run(shoot(args.out, data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
