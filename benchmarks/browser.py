"""The app in a browser: page load to the start form, and a key to the screen's change, on loopback.

    python benchmarks/browser.py [--loads 10] [--keys 30] [--docs]

Runs the real ``pxp serve`` on a fresh blackboard and opens it in Debian's Chromium (headless, Playwright,
as tests/real/test_browser.py does), at 1280x800. Both figures are read with the page's own clock
(``performance.now()``), from a script the benchmark adds to the page:

- page load to the start form: from the navigation's start (the address typed) to the first frame the
  page's terminal draws with the start form on it (``Task``, ``Start``), in a new browser context each time
  (nothing cached; each load starts an app process of its own, as each tab does);
- key to screen: from a key's ``keydown`` in the page to the first frame the terminal draws after the app's
  answer to it reached the page (Tab and shift+Tab in turn on the start form: the focus moves, the app
  redraws), the next key sent once the app has written nothing for 0.3 s.

Targets: 1.5 s and 100 ms (medians). ``--docs`` writes the table into docs/performance.md (on a quiet
machine only: the load average at the start is checked; the one at the end is the browser's and the apps' own).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from docs_section import write_section  # noqa: E402  # at the top: it reads the load as the benchmark starts

from pxp_harness.browser import VIEWPORT, Served, launch, why_no_browser  # noqa: E402

#: the page's clock: when the start form is first drawn; when a key went down and the first frame after its answer
CLOCK = r"""
(() => {
  const marks = { form: null, firstWrite: null, keys: [], lastWrite: 0 };
  window.__pxpBench = marks;
  let pending = null;  // a key's time, until the first frame drawn after the app's answer to it
  let answered = false;
  document.addEventListener("keydown", () => { pending = performance.now(); answered = false; }, true);
  const text = (terminal) => {
    const lines = [];
    for (let i = 0; i < terminal.rows; i++) {
      const line = terminal.buffer.active.getLine(i);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\n");
  };
  const hook = setInterval(() => {
    const session = window.pxpSession;
    if (!session || !session.terminal) { return; }
    clearInterval(hook);
    const terminal = session.terminal;
    terminal.onWriteParsed(() => {
      marks.lastWrite = performance.now();
      if (marks.firstWrite === null) { marks.firstWrite = marks.lastWrite; }
      if (pending !== null) { answered = true; }
    });
    terminal.onRender(() => {
      const now = performance.now();
      if (marks.form === null && /Task/.test(text(terminal)) && /Start/.test(text(terminal))) { marks.form = now; }
      if (pending !== null && answered) { marks.keys.push(now - pending); pending = null; }
    });
  }, 1);
})();
"""


async def until(page: object, condition: str, patience: float = 120.0) -> None:
    await page.wait_for_function(condition, timeout=patience * 1000)  # type: ignore[attr-defined]


async def measure(url: str, loads: int, keys: int) -> tuple[dict[str, list[float]], list[float]]:
    """The page loads' milestones (ms from the navigation's start) and the keys' times (ms from keydown)."""
    from playwright.async_api import async_playwright

    form: dict[str, list[float]] = {"loaded": [], "first": [], "form": []}
    typed: list[float] = []
    async with async_playwright() as playwright:
        browser = await launch(playwright)
        for load in range(loads):
            context = await browser.new_context(viewport=VIEWPORT)
            await context.add_init_script(CLOCK)
            page = await context.new_page()
            await page.goto(url)
            await until(page, "window.__pxpBench && window.__pxpBench.form !== null")
            loaded, first, drawn = await page.evaluate(
                "[performance.getEntriesByType('navigation')[0].loadEventEnd, window.__pxpBench.firstWrite,"
                " window.__pxpBench.form]"
            )
            form["loaded"].append(loaded)
            form["first"].append(first)
            form["form"].append(drawn)
            if load == 0:  # the keys, in the first tab: its app is started and idle
                for key in range(keys):
                    await until(page, "performance.now() - window.__pxpBench.lastWrite > 300")  # the app has settled
                    await page.keyboard.press("Tab" if key % 2 == 0 else "Shift+Tab")
                    await until(page, f"window.__pxpBench.keys.length > {key}")
                typed = await page.evaluate("window.__pxpBench.keys")
            await context.close()  # the tab's app is told to quit
        await browser.close()
    return form, typed


def describe(values: list[float]) -> tuple[str, str, str]:
    return f"{statistics.median(values):.0f}", f"{min(values):.0f}-{max(values):.0f}", str(len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=10, help="page loads, each in a new browser context (default 10)")
    parser.add_argument("--keys", type=int, default=30, help="keys typed on the start form (default 30)")
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/performance.md")
    args = parser.parse_args()
    reason = why_no_browser()
    if reason:
        print(f"browser: {reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        served = Served(home / "sessions.db", home)
        try:
            form, typed = asyncio.run(measure(served.url, args.loads, args.keys))
        finally:
            served.stop()
    rows = [
        "| step | median ms | range ms | n | target ms |",
        "|---|---:|---:|---:|---:|",
        "| page load to the page's load event (page, script, font) | {} | {} | {} | |".format(*describe(form["loaded"])),
        "| page load to the server's first bytes (the page's terminal asked what it draws) | {} | {} | {} | |".format(
            *describe(form["first"])
        ),
        "| page load to the start form drawn | {} | {} | {} | 1500 |".format(*describe(form["form"])),
        "| key (Tab) to the screen's change drawn | {} | {} | {} | 100 |".format(*describe(typed)),
    ]
    print("\n".join(rows))
    if args.docs:
        own = "Chromium, pxp serve and each tab's app"
        write_section("browser", "pxp serve in Chromium, on loopback", "\n".join(rows), own_load=own)
    return 0


if __name__ == "__main__":
    sys.exit(main())
