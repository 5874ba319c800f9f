"""``scripts/screenshots.py --check``: a screenshot in docs/ that is not what the app renders now is named, with the first
row that differs, and the command fails; one rendered again passes, render after render."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from ..conftest import ROOT

SCRIPT = ROOT / "scripts" / "screenshots.py"


def screenshots(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--only", "start", *args], capture_output=True, text=True, timeout=600)


def resave(png: Path, record: dict[str, str]) -> None:
    """The PNG's pixels again, recording ``record`` (nothing: a PNG made by hand)."""
    with Image.open(png) as picture:
        picture.load()
    info = PngInfo()
    for key, value in record.items():
        info.add_itxt(key, value)
    picture.save(png, pnginfo=info)


def recorded(png: Path) -> dict[str, str]:
    with Image.open(png) as picture:
        return {key: str(value) for key, value in picture.text.items()}


@pytest.mark.slow  # the app driven eight times, at two sizes
@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert (Debian: librsvg2-bin)")
def test_a_stale_screenshot_fails_the_check_naming_it_and_the_row_and_a_fresh_one_passes(tmp_path) -> None:
    made = screenshots("--out", str(tmp_path))
    assert made.returncode == 0, made.stderr
    small, large = tmp_path / "start-80x24.png", tmp_path / "start-160x48.png"
    record = recorded(small)
    rows = record["pxp-screen-text"].splitlines()
    assert any("alice" in row for row in rows), "the PNG records the screen's text, the expert's name in it"
    for _ in range(2):  # a fresh one passes, and again: nothing measured while rendering changes the screen
        fresh = screenshots("--out", str(tmp_path), "--check")
        assert fresh.returncode == 0, fresh.stderr

    # the app drew row 3 otherwise when the PNG was made: the check names the PNG, the row, what it was and is
    older = [*rows[:2], "an older screen", *rows[3:]]
    resave(small, {"pxp-screen": "0" * 64, "pxp-screen-text": "\n".join(older)})
    checked = screenshots("--out", str(tmp_path), "--check")
    assert checked.returncode == 1
    assert "start-80x24.png: the app now draws another screen: row 3 was 'an older screen'" in checked.stderr
    assert "start-160x48" not in checked.stderr

    resave(small, {})  # pixels from elsewhere, recording no screen
    assert "start-80x24.png: records no screen" in screenshots("--out", str(tmp_path), "--check").stderr
    large.unlink()
    assert "start-160x48.png: missing" in screenshots("--out", str(tmp_path), "--check").stderr
