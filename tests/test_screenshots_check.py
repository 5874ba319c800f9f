"""``scripts/screenshots.py --check``: a screenshot in docs/ that is not what the app renders now is named, and the
command fails; one rendered again passes."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from PIL import Image

from .conftest import ROOT

SCRIPT = ROOT / "scripts" / "screenshots.py"


def screenshots(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--only", "start", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # the app driven four times, at two sizes
@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert (Debian: librsvg2-bin)")
def test_a_stale_screenshot_fails_the_check_naming_it_and_a_fresh_one_passes(tmp_path) -> None:
    made = screenshots("--out", str(tmp_path))
    assert made.returncode == 0, made.stderr
    assert screenshots("--out", str(tmp_path), "--check").returncode == 0
    small = tmp_path / "start-80x24.png"
    with Image.open(small) as picture:
        spoiled = picture.convert("RGB")
    spoiled.putpixel((5, 5), (255, 0, 0))  # one pixel of the header
    spoiled.save(small)
    checked = screenshots("--out", str(tmp_path), "--check")
    assert checked.returncode == 1
    assert "start-80x24.png: differs from what the app renders" in checked.stderr and "start-160x48" not in checked.stderr
    (tmp_path / "start-160x48.png").unlink()
    assert "start-160x48.png: missing" in screenshots("--out", str(tmp_path), "--check").stderr
