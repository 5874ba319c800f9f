"""Checks on the bundled RAD demo dataset (synthetic chest-radiograph phantoms).

The assets live in pxp_tui/assets/demo/{rad.csv,rad/*.png} and are produced by
scripts/make_rad_phantoms.py; these tests regenerate them, check the table and
the images, and check that the five classes can be told apart from the pixels
(but not from overall brightness alone).
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from collections import Counter
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make_rad_phantoms.py"
DEMO = files("pxp_tui.assets") / "demo"
COLUMNS = ["key", "label", "split", "image", "report"]
LABELS = {"Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax"}
PER_SPLIT = {"train": 4, "val": 2, "test": 2}  # per label

# measured on the committed assets: 1-NN (L2, 32x32) 0.9 on the test split; image mean alone 0.2
KNN_MIN_ACCURACY = 0.8


def _rows() -> list[dict[str, str]]:
    text = (DEMO / "rad.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == COLUMNS
    return list(reader)


ROWS = _rows()


def _image(row: dict[str, str]) -> Image.Image:
    with (DEMO / row["image"]).open("rb") as fh:
        img = Image.open(fh)
        img.load()
    return img


@pytest.mark.slow
def test_script_regenerates_the_assets(tmp_path: Path) -> None:
    """The script reproduces the bundled set: the same table, and the same pictures (pixel by pixel,
    within two grey levels, so that a newer Pillow or numpy resampling differently does not fail)."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rad.csv").read_bytes() == (DEMO / "rad.csv").read_bytes()
    made = sorted(p.name for p in (tmp_path / "rad").iterdir())
    bundled = sorted(p.name for p in (DEMO / "rad").iterdir() if p.name.endswith(".png"))
    assert made == bundled == [f"phantom_{i:02d}.png" for i in range(1, 41)]
    for name in made:
        with Image.open(tmp_path / "rad" / name) as new, (DEMO / "rad" / name).open("rb") as fh:
            old = np.asarray(Image.open(fh).convert("L"), dtype=np.int16)
            diff = np.abs(np.asarray(new.convert("L"), dtype=np.int16) - old)
        assert diff.mean() < 0.5 and np.percentile(diff, 99.9) <= 2, name


def test_table_and_splits() -> None:
    assert len(ROWS) == 40
    keys = [r["key"] for r in ROWS]
    assert keys == [f"phantom_{i:02d}" for i in range(1, 41)]
    assert {r["label"] for r in ROWS} == LABELS
    counts = Counter((r["label"], r["split"]) for r in ROWS)
    for label in LABELS:
        for split, n in PER_SPLIT.items():
            assert counts[(label, split)] == n, (label, split, counts[(label, split)])
    assert sum(counts.values()) == 40
    for r in ROWS:
        assert r["image"] == f"rad/{r['key']}.png"
        for col in COLUMNS:
            assert r[col] and r[col].strip() == r[col], (r["key"], col)


@pytest.mark.parametrize("row", ROWS, ids=[r["key"] for r in ROWS])
def test_report(row: dict[str, str]) -> None:
    report = row["report"]
    assert report.startswith("Synthetic phantom. ")
    sentences = re.findall(r"[^.]+(?:\.\d+[^.]*)*\.", report)  # keep decimals such as 0.62 inside a sentence
    assert 2 <= len(sentences) <= 4, sentences
    if row["label"] != "Cardiomegaly":  # the finding sentence names exactly one side
        assert ("right" in sentences[1]) != ("left" in sentences[1]), sentences[1]
    ctr = re.search(r"cardiothoracic ratio about (0\.\d\d)", report)
    if row["label"] == "Cardiomegaly":
        assert ctr and float(ctr.group(1)) > 0.5
    elif ctr:
        assert float(ctr.group(1)) < 0.5


def test_reports_name_their_finding() -> None:
    words = {
        "Atelectasis": "atelectasis",
        "Pneumonia": "consolidation",
        "Pleural Effusion": "pleural effusion",
        "Cardiomegaly": "enlarged cardiac silhouette",
        "Pneumothorax": "pneumothorax",
    }
    for r in ROWS:
        assert words[r["label"]] in r["report"], r["key"]
    assert len({r["report"] for r in ROWS}) >= 30  # generated from each image's own parameters


def test_images_open_as_256_grayscale() -> None:
    total = 0
    digests = set()
    for r in ROWS:
        img = _image(r)
        assert img.format == "PNG"
        assert img.mode == "L"
        assert img.size == (256, 256)
        digests.add(img.tobytes())
        total += len((DEMO / r["image"]).read_bytes())
    assert len(digests) == 40  # no two identical
    assert total < 1_500_000


@pytest.mark.parametrize("row", [r for r in ROWS if r["label"] in ("Pleural Effusion", "Atelectasis")], ids=lambda r: r["key"])
def test_report_side_matches_pixels(row: dict[str, str]) -> None:
    """Fluid, or a raised hemidiaphragm, makes the lower zone of the reported side the brighter one.

    Convention: the patient's right is on the image's left.
    """
    a = np.asarray(_image(row), dtype=np.float64)
    asym = (a - a[:, ::-1])[120:175, 30:100].mean()  # image-left lower zone minus its mirror image
    side = "right" if " right " in row["report"].split(". ")[1] else "left"
    assert (asym > 3.0) if side == "right" else (asym < -3.0), (side, asym)


def _features() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vecs = [
        np.asarray(_image(r).convert("L").resize((32, 32), Image.Resampling.BILINEAR), dtype=np.float64).ravel() for r in ROWS
    ]
    labels = np.array([r["label"] for r in ROWS])
    splits = np.array([r["split"] for r in ROWS])
    return np.stack(vecs), labels, splits


def _nn_accuracy(feats: np.ndarray, labels: np.ndarray, splits: np.ndarray) -> float:
    ref, test = splits != "test", splits == "test"
    dist = ((feats[test][:, None, :] - feats[ref][None, :, :]) ** 2).sum(axis=-1)
    pred = labels[ref][dist.argmin(axis=1)]
    return float((pred == labels[test]).mean())


def test_classes_learnable_from_pixels_not_brightness() -> None:
    feats, labels, splits = _features()
    knn = _nn_accuracy(feats, labels, splits)
    mean_only = _nn_accuracy(feats.mean(axis=1, keepdims=True), labels, splits)
    chance = 1.0 / len(LABELS)
    assert knn >= max(0.5, KNN_MIN_ACCURACY), knn
    assert knn > chance + 0.3
    assert mean_only < knn, (mean_only, knn)
    assert mean_only <= knn - 0.3, (mean_only, knn)
