"""Real pixels in real terminal emulators: the real ``pxp`` in ``xterm -ti vt340`` (Sixel) and in kitty (its
graphics protocol) on a private X server, the X-ray read back from a screenshot of the terminal's window.

The app runs with a theme without grey (pxp_harness/xscreen.py), so the grey pixels on the screen are the X-ray's:
its box is the largest region of them. Drawn at pixel resolution, neighbouring screen rows through it differ
far more often than once per half cell, and every band of six rows matches the image (the stray band
was the first one, garbage); nothing grey the size of a cell is drawn anywhere else.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP
from pxp_harness.xscreen import THEME, Terminal, XServer, grey_regions, missing, shown_picture

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python"),
    pytest.mark.skipif(
        bool(missing("Xvfb", "xdpyinfo", "xdotool", "xwd")),
        reason="needs Xvfb, xdpyinfo, xdotool and xwd (.ci/run installs them)",
    ),
]

SIZE = (160, 48)


def height(box: tuple[int, int, int, int]) -> int:
    return box[3] - box[1]


@pytest.fixture
def xserver():
    server = XServer().start()
    yield server
    server.close()


def app_env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"theme": THEME}))
    return {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "PXP_CONFIG_DIR": str(config),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
        "PXP_OFFLINE_LATENCY": "0",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def kitty_version() -> tuple[int, int] | None:
    """kitty's version here, or None where it is not installed."""
    if missing("kitty"):
        return None
    out = subprocess.run(["kitty", "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"kitty (\d+)\.(\d+)", out)
    return (int(found[1]), int(found[2])) if found else None


KITTY = kitty_version()
#: textual-image places kitty pictures by Unicode placeholders, which kitty draws from 0.28
PLACEHOLDERS = (0, 28)


def source(picture: Path | bytes):
    from io import BytesIO

    from PIL import Image

    return Image.open(BytesIO(picture) if isinstance(picture, bytes) else picture).convert("L")


def assert_drawn_at_pixel_resolution(screen, box: tuple[int, int, int, int], original, cell_height: int) -> None:
    """The picture in ``box`` of ``screen`` is ``original`` at pixel resolution, every band of it, and alone."""
    import numpy

    shown = numpy.asarray(screen.convert("L").crop(box)).astype(int)
    height, width = shown.shape
    assert height >= 200, f"the picture is {width}x{height} screen pixels: fewer than 200 rows"
    # aspect kept (within the rounding to whole cells: one cell each way)
    assert abs(width / height - original.width / original.height) < 0.05

    # along vertical lines through the picture, neighbouring screen rows differ far more often than once per half
    # cell (half-cell blocks: at most one change every cell_height / 2 rows)
    for x in (width // 3, width // 2, 2 * width // 3):
        column = shown[:, x]
        changes = int((numpy.diff(column) != 0).sum())
        half_cells = height / (cell_height / 2)  # a 256-pixel phantom scaled up 3x full-screen: about 2x that
        assert changes > 1.5 * half_cells, f"{changes} changes in {height} rows at x={x}: half-cell blocks give {half_cells:.0f}"

    # every band of six rows (a Sixel band) shows the image: the top one included (the stray band was garbage there)
    # (scaled by another resampling than the app's: a few grey levels apart, more at a phantom's sharp edges)
    expected = numpy.asarray(original.resize((width, height))).astype(int)
    errors = [numpy.abs(shown[band : band + 6] - expected[band : band + 6]).mean() for band in range(0, height - 5, 6)]
    # (the real case_1: 0.4 to 0.6 grey levels per band, the stray band 33; a noisy phantom scaled up: about 5-8)
    typical = float(numpy.median(errors))
    assert typical < 12, f"the picture differs from the image by {typical:.1f} grey levels"
    worst = int(numpy.argmax(errors))
    assert errors[worst] < typical + 15, (
        f"rows {6 * worst}-{6 * worst + 5} differ from the image by {errors[worst]:.1f} grey levels (typically {typical:.1f})"
    )

    # nothing else grey the size of a cell anywhere on the screen (white letters have a few grey pixels)
    others = [r for r in grey_regions(screen, spread=0)[1:] if r[0] > cell_height * 4]  # a band of one grey too
    assert not others, f"grey regions outside the picture's box {box}: {others[:5]}"


def first_image(db: Path) -> bytes:
    """The image of the run's first session (once the app has begun it)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        (data,) = conn.execute(
            "SELECT m.data FROM data d JOIN instances i ON i.id = d.instance_id JOIN images m ON m.sha256 = i.image_sha"
            " WHERE d.ord = 0"
        ).fetchone()
    return data


def run_and_look(xserver: XServer, kind: str, tmp_path: Path, db: Path, run: list[str]) -> None:
    """``pxp run`` in the terminal: the X-ray in the session pane, then full-screen (f), each looked at."""
    terminal = Terminal(xserver, kind, [str(PXP), *run, "--db", str(db)], SIZE, app_env(tmp_path))
    try:
        with terminal.explained(tmp_path):
            screen, box = shown_picture(terminal, lambda box: height(box) >= 200, f"the X-ray in the session pane ({kind})")
            original = source(first_image(db))
            screen.save(tmp_path / f"{kind}-session.png")  # to look at, when the test fails
            cell_height = screen.height // SIZE[1]
            assert_drawn_at_pixel_resolution(screen, box, original, cell_height)
            in_pane = box
            terminal.keys("f")
            screen, box = shown_picture(terminal, lambda box: height(box) > height(in_pane), f"the X-ray full-screen ({kind})")
            screen.save(tmp_path / f"{kind}-full-screen.png")
            assert_drawn_at_pixel_resolution(screen, box, original, cell_height)
    finally:
        terminal.close()


def test_a_real_xray_is_drawn_at_pixel_resolution_in_xterm_sixel_without_a_stray_band(
    xserver: XServer, tmp_path: Path, shared_data: Path
) -> None:
    db = tmp_path / "sessions.db"
    subprocess.run([str(PXP), "import", "rad", str(shared_data / "train_xray_data.csv"), "--db", str(db)], check=True)
    run = ["run", "--task", "rad", "--dataset", "train_xray_data", "--human", "live", "--limit", "1"]
    run_and_look(xserver, "xterm", tmp_path, db, run)
    assert first_image(db) == (shared_data / "xrays" / "Case 1 Image - Lateral.png").read_bytes()  # case_1


def test_the_bundled_phantom_is_drawn_at_pixel_resolution_in_xterm_sixel(xserver: XServer, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    run_and_look(xserver, "xterm", tmp_path, db, ["run", "--task", "rad", "--human", "live", "--limit", "1"])


@pytest.mark.skipif(KITTY is None, reason="kitty is not installed")
@pytest.mark.skipif(
    KITTY is not None and KITTY < PLACEHOLDERS,
    reason=f"kitty {KITTY} here predates Unicode placeholders (kitty 0.28), through which textual-image places its pictures",
)
def test_a_phantom_is_drawn_at_pixel_resolution_in_kitty(xserver: XServer, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    run_and_look(xserver, "kitty", tmp_path, db, ["run", "--task", "rad", "--human", "live", "--limit", "1"])


@pytest.mark.skipif(KITTY is None or KITTY >= PLACEHOLDERS, reason="needs a kitty older than 0.28 (Debian's 0.26)")
def test_in_a_kitty_too_old_for_placeholders_the_xray_is_drawn_in_half_cells_not_as_empty_boxes(
    xserver: XServer, tmp_path: Path
) -> None:
    """kitty 0.26 answers kitty's graphics query but draws textual-image's placeholders as empty boxes: pxp asks its
    version (XTVERSION) and draws half-cell blocks instead."""
    db = tmp_path / "sessions.db"
    run = [str(PXP), "run", "--task", "rad", "--human", "live", "--limit", "1", "--db", str(db)]
    terminal = Terminal(xserver, "kitty", run, SIZE, app_env(tmp_path))
    try:
        with terminal.explained(tmp_path):
            screen, box = shown_picture(terminal, lambda box: height(box) >= 200, "the X-ray in half-cell blocks (kitty 0.26)")
            screen.save(tmp_path / "kitty-half-cells.png")
    finally:
        terminal.close()
    import numpy

    shown = numpy.asarray(screen.convert("L").crop(box)).astype(int)
    cell_height = screen.height // SIZE[1]
    for x in (shown.shape[1] // 3, shown.shape[1] // 2):  # half-cell blocks: at most one change per half cell
        changes = int((numpy.diff(shown[:, x]) != 0).sum())
        assert changes <= shown.shape[0] / (cell_height / 2) + 2, f"{changes} changes in {shown.shape[0]} rows"


def content_box(image, box: tuple[int, int, int, int] | None = None, dark: int = 24) -> tuple[int, int]:
    """Width and height of what is not black (a grey level above ``dark``) in ``image`` (or its ``box``): the X-ray's
    own extent, without the black a picture is framed with to fill whole cells."""
    import numpy

    grey = numpy.asarray((image.crop(box) if box else image).convert("L")).astype(int)
    rows, cols = numpy.nonzero(grey > dark)
    return int(cols.max() - cols.min() + 1), int(rows.max() - rows.min() + 1)


def test_one_to_one_in_xterm_sixel_is_one_image_pixel_per_screen_pixel_and_zoom_steps_are_exact_multiples(
    xserver: XServer, tmp_path: Path
) -> None:
    """The 256x256 phantom filled 640x640 screen pixels under a status line saying 1:1 (textual-image fitted the
    image, of auto size, to its frame); xterm draws a Sixel image at its own size."""
    db = tmp_path / "sessions.db"
    run = [str(PXP), "run", "--task", "rad", "--human", "live", "--limit", "1", "--db", str(db)]
    terminal = Terminal(xserver, "xterm", run, SIZE, app_env(tmp_path))
    try:
        shown_picture(terminal, lambda box: height(box) >= 100, "the X-ray in the session pane")
        original = source(first_image(db))
        own = content_box(original)
        terminal.keys("f")
        shown_picture(terminal, lambda box: height(box) > 600, "the X-ray full-screen, fitted")
        for key, scale in (("z", 1), ("plus", 2)):
            terminal.keys(key)
            screen, box = shown_picture(
                terminal, lambda box, s=scale: abs(height(box) - s * original.height) < 40, f"the X-ray at {scale}:1"
            )
            screen.save(tmp_path / f"xterm-{scale}-to-1.png")
            width, tall = content_box(screen, box)
            assert abs(width / own[0] - scale) <= 0.02 * scale, f"{scale}:1 shows {width} screen pixels for {own[0]}"
            assert abs(tall / own[1] - scale) <= 0.02 * scale, f"{scale}:1 shows {tall} screen pixels for {own[1]}"
    finally:
        terminal.close()
