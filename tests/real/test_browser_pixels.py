"""The X-ray in real pixels in the browser: ``pxp serve``'s page (xterm.js and its image addon) draws Sixel, and the
app, told so by the page's terminal, draws the X-ray in pixels with the reading tools.

Read back from Chromium's screenshots, as tests/real/test_real_terminals.py reads xterm's: the app runs with a theme
without grey (pxp_harness/xscreen.py), so the grey pixels on the screen are the X-ray's, its box the largest region of
them. Half-cell blocks change colour once per half cell (neighbouring screen rows differ about 0.1 of the time);
drawn at pixel resolution, they differ nearly everywhere.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pxp_harness import waiting
from pxp_harness.browser import PXP, VIEWPORT, Served, Tab, launch, needs_browser, start_rad_run
from pxp_harness.xscreen import THEME, grey_regions

pytestmark = [pytest.mark.slow, needs_browser]

#: the least share of neighbouring screen rows through the X-ray that differ, drawn in pixels
PIXELS = 0.8


def rows_differ(picture: Any) -> float:
    """The share of neighbouring screen rows that differ along vertical lines through the middle of ``picture``."""
    import numpy

    shown = numpy.asarray(picture.convert("L")).astype(int)
    width = shown.shape[1]
    columns = [shown[:, x] for x in (width * 2 // 5, width // 2, width * 3 // 5)]
    return float(numpy.mean([(numpy.diff(column) != 0).mean() for column in columns]))


async def shown_picture(tab: Tab, wanted: Any, what: str) -> tuple[Any, tuple[int, int, int, int]]:
    """Wait until the tab shows a grey picture for which ``wanted(screenshot, box)`` holds, the same in two
    screenshots in a row (drawn, not being drawn): the screenshot and the picture's box (left, top, right, bottom).
    Each look is a screenshot, which paces the loop."""
    from PIL import Image

    bound = waiting.Patience(what, tab.patience)
    last = b""
    while True:
        image = Image.open(io.BytesIO(await tab.page.screenshot())).convert("RGB")
        same, last = last == image.tobytes(), image.tobytes()
        regions = grey_regions(image)
        if same and regions and wanted(image, regions[0][1:]):
            return image, regions[0][1:]
        bound.give_up(regions[:1])


def grey_mean(image: Any, box: tuple[int, int, int, int]) -> float:
    import numpy

    return float(numpy.asarray(image.crop(box).convert("L")).mean())


def status(tab: Tab) -> str:
    """The full-screen picture's status line (zoom, region, window)."""
    found = re.search(r"zoom .*|1:1 .*", tab.text())
    return found[0].strip() if found else ""


#: the dataset of these tests: the demo's cases, each with one large X-ray of its own making (a phantom scaled up 3x,
#: with noise: a real X-ray is larger than the screen, and has detail in every row)
DATASET = "large_xrays"
SIDE = 768


def large_xrays(folder: Path) -> Path:
    """The demo's RAD cases, each with the one large X-ray (stored once: the blackboard keeps an image by its hash)."""
    import csv

    import numpy
    from PIL import Image

    demo = Path(__file__).resolve().parents[2] / "pxp_tui" / "assets" / "demo"
    with Image.open(demo / "rad" / "phantom_01.png") as phantom:
        scaled = numpy.asarray(phantom.convert("L").resize((SIDE, SIDE), Image.Resampling.BICUBIC)).astype(float)
    noise = numpy.random.default_rng(7).normal(0, 10, scaled.shape)
    Image.fromarray(numpy.clip(scaled + noise, 0, 255).astype("uint8")).save(folder / "xray.png")
    with open(demo / "rad.csv", newline="") as source, open(folder / f"{DATASET}.csv", "w", newline="") as out:
        rows = list(csv.DictReader(source))
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**row, "image": "xray.png"} for row in rows)
    return folder / f"{DATASET}.csv"


def served_with_theme(tmp_path: Path) -> Served:
    """``pxp serve`` on a blackboard holding :func:`large_xrays`, the app in a theme without grey."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"theme": THEME}))
    db = tmp_path / "sessions.db"
    subprocess.run([str(PXP), "import", "rad", str(large_xrays(tmp_path)), "--db", str(db)], check=True, capture_output=True)
    return Served(db, tmp_path, env={"PXP_CONFIG_DIR": str(config)})


async def test_the_x_ray_is_drawn_in_pixels_in_the_browser_with_the_reading_tools(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    served = served_with_theme(tmp_path)
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            tab = await Tab.open(await browser.new_context(viewport=VIEWPORT), served.url)
            await start_rad_run(tab, DATASET)
            assert "v: full size in a new tab" not in tab.text()  # the picture's header: no excuse for blocks
            screen, box = await shown_picture(tab, lambda _, box: box[3] - box[1] >= 150, "the X-ray in the session pane")
            screen.save(tmp_path / "session.png")  # to look at, when the test fails
            pane = box[3] - box[1]
            assert rows_differ(screen.crop(box)) >= PIXELS, f"the X-ray in the session pane ({box}) is not drawn in pixels"

            await tab.keys("f")  # full-screen, fitted
            await tab.wait(r"zoom 1× .* W 255 L 127\.5")
            screen, box = await shown_picture(tab, lambda _, box: box[3] - box[1] > pane, "the X-ray full-screen")
            screen.save(tmp_path / "full.png")
            assert rows_differ(screen.crop(box)) >= PIXELS, f"the X-ray full-screen ({box}) is not drawn in pixels"
            fitted, level = box, grey_mean(screen, box)

            await tab.keys("}", "}")  # the window's level down: brighter
            await tab.wait(r"W 255 L (?!127\.5)")
            screen, box = await shown_picture(tab, lambda image, _: grey_mean(image, fitted) > level + 10, "a brighter X-ray")
            screen.save(tmp_path / "brighter.png")
            assert rows_differ(screen.crop(fitted)) >= PIXELS
            brighter = grey_mean(screen, fitted)

            await tab.keys("i")  # inverted: the bright body dark
            await tab.wait("inverted")
            screen, box = await shown_picture(tab, lambda image, _: grey_mean(image, fitted) < 255 - brighter + 10, "inverted")
            screen.save(tmp_path / "inverted.png")
            assert rows_differ(screen.crop(fitted)) >= PIXELS

            await tab.keys("i", "d", "z")  # the default window, then 1:1: the image's own pixels, one to a screen pixel
            await tab.wait(r"1:1 .* W 255 L 127\.5")
            screen, box = await shown_picture(tab, lambda _, box: box[3] - box[1] > 500, "the X-ray at 1:1")
            screen.save(tmp_path / "one-to-one.png")
            assert rows_differ(screen.crop(box)) >= PIXELS
            await browser.close()
    finally:
        assert served.stop() == 0
