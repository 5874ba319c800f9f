"""DICOM X-rays in RAD: ``pxp import rad`` reads them (pydicom) at full depth, they are shown in the file's own
window the right way up, the full-screen viewer windows them over their full depth in the file's values, and a
file pxp cannot read is refused in one line with the blackboard unchanged. Every file is written by the test."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import numpy
import pytest
from PIL import Image

from pxp_harness.app_helpers import expert_turn, live_app, wait_for
from pxp_harness.cli_helpers import digest, pxp
from pxp_harness.dicom_files import ramp, write_dicom
from pxp_tui.app.picture.tone import Tone
from pxp_tui.app.picture.viewer import PictureScreen
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.tasks import get_task
from pxp_tui.tasks.grey_levels import TOP_16, Levels, png

pytest.importorskip("pydicom")

#: the ramp's columns sampled, and its stored value there (0 to 65535 over 64 columns)
COLUMNS = (0, 16, 24, 28, 32, 36, 40, 48, 63)


def imported(capsys, db_path: Path, folder: Path, files: dict[str, Path], name: str = "dicom") -> dict[str, Instance]:
    """The files imported as a RAD dataset (one case each, key = its name), by ``pxp import rad``."""
    lines = ["key,label,split,image,report"] + [
        f"{key},Cardiomegaly,train,{path.name},Large heart." for key, path in files.items()
    ]
    csv = folder / f"{name}.csv"
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = pxp(capsys, "import", "rad", csv, "--db", db_path, "--name", name)
    assert code == 0, err
    assert f"imported {len(files)} rad instances" in out
    with Blackboard.open(db_path, create=False) as board:
        return {i.key: i for i in board.instances(board.instance_ids(name))}


def shown_row(instance: Instance) -> list[int]:
    """The grey levels the session shows along the picture's middle row, at :data:`COLUMNS`."""
    drawn = get_task("rad").draw_instance(instance, (200, 200))
    image = drawn if isinstance(drawn, Image.Image) else Image.open(BytesIO(drawn))
    grey = image.convert("L")
    return [grey.getpixel((x, grey.height // 2)) for x in COLUMNS]


def expected(low: float, high: float, bits: int = 16) -> list[int]:
    """The grey levels of the ramp at :data:`COLUMNS` in the window ``low``-``high`` of its stored values."""
    values = ramp(bits=bits)[0, list(COLUMNS)].astype(float)
    return [int(v) for v in numpy.clip(numpy.rint((values - low) * 255 / (high - low)), 0, 255)]


def test_a_16_bit_dicom_imports_at_full_depth_and_shows_in_its_own_window(capsys, tmp_path: Path, db_path: Path) -> None:
    path = write_dicom(tmp_path / "chest.dcm", ramp(), window=(32768, 16384), spacing=(0.2, 0.2))
    case = imported(capsys, db_path, tmp_path, {"chest": path})["chest"]
    assert case.image_mime == "image/png"
    stored = Image.open(BytesIO(case.image))
    assert stored.mode.startswith("I") and numpy.asarray(stored).max() == 65535  # 16 bits kept, not cut to 8
    assert shown_row(case) == expected(24576, 40960)  # the file's WindowCenter/WindowWidth, not the full range
    assert shown_row(case)[0] == 0 and shown_row(case)[-1] == 255 and 0 < shown_row(case)[4] < 255
    info = get_task("rad").describe(case)
    assert info["image"] == "64x48 DICOM 16-bit MONOCHROME2" and info["pixel"] == "0.2 mm"
    assert "Phantom" not in str(case.meta)  # the file's other tags (the patient's name) are not stored


def test_monochrome1_is_shown_the_right_way_up(capsys, tmp_path: Path, db_path: Path) -> None:
    # MONOCHROME1: the smallest value is white. A 12-bit ramp without a window: its darkest to brightest.
    path = write_dicom(tmp_path / "inverted.dcm", ramp(bits=12), bits=12, photometric="MONOCHROME1")
    case = imported(capsys, db_path, tmp_path, {"inverted": path})["inverted"]
    row = shown_row(case)
    assert row[0] == 255 and row[-1] == 0 and row == sorted(row, reverse=True)
    assert get_task("rad").describe(case)["image"] == "64x48 DICOM 12-bit MONOCHROME1"


def test_the_window_is_read_in_the_rescaled_values(capsys, tmp_path: Path, db_path: Path) -> None:
    # values = 2 * stored - 1024: the same window as the first test, said in the rescaled values
    path = write_dicom(tmp_path / "rescaled.dcm", ramp(), window=(2 * 32768 - 1024, 2 * 16384), rescale=(2, -1024))
    case = imported(capsys, db_path, tmp_path, {"rescaled": path})["rescaled"]
    assert shown_row(case) == expected(24576, 40960)


def test_an_rle_compressed_file_imports_with_the_same_pixels(capsys, tmp_path: Path, db_path: Path) -> None:
    plain = write_dicom(tmp_path / "plain.dcm", ramp(), window=(30000, 20000))
    rle = write_dicom(tmp_path / "rle.dcm", ramp(), window=(30000, 20000), compress="rle")
    cases = imported(capsys, db_path, tmp_path, {"plain": plain, "rle": rle})
    pixels = {k: numpy.asarray(Image.open(BytesIO(c.image))) for k, c in cases.items()}
    assert numpy.array_equal(pixels["plain"], pixels["rle"])
    assert shown_row(cases["rle"]) == expected(20000, 40000)


def test_dicom_files_pxp_cannot_read_are_refused_one_line_each_and_the_blackboard_is_unchanged(
    capsys, tmp_path: Path, db_path: Path
) -> None:
    imported(capsys, db_path, tmp_path, {"good": write_dicom(tmp_path / "good.dcm", ramp())}, name="first")
    before = digest(db_path)
    write_dicom(tmp_path / "jpegls.dcm", ramp(), compress="jpeg-ls")
    (tmp_path / "truncated.dcm").write_bytes((tmp_path / "good.dcm").read_bytes()[:-1000])  # its pixels cut short
    (tmp_path / "notdicom.dcm").write_bytes(b"this is a text file")
    write_dicom(tmp_path / "colour.dcm", ramp(bits=8), bits=8, photometric="PALETTE COLOR")
    csv = tmp_path / "bad.csv"
    csv.write_text(
        "key,label,split,image,report\n"
        "a,Pneumonia,train,good.dcm,Patchy opacity.\n"
        "b,Pneumonia,train,jpegls.dcm,Patchy opacity.\n"
        "c,Pneumonia,train,truncated.dcm,Patchy opacity.\n"
        "d,Pneumonia,train,notdicom.dcm,Patchy opacity.\n"
        "e,Pneumonia,train,colour.dcm,Patchy opacity.\n",
        encoding="utf-8",
    )
    code, out, err = pxp(capsys, "import", "rad", csv, "--db", db_path, "--name", "bad")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "nothing imported, 4 problems" in err
    assert (
        "line 3: image 'jpegls.dcm' cannot be read: compressed with JPEG-LS Lossless Image Compression (1.2.840.10008.1.2.4.80)"
        in err
    )
    assert "line 4: image 'truncated.dcm' cannot be read: its pixels (Explicit VR Little Endian) cannot be decoded" in err
    assert "line 5: image 'notdicom.dcm' cannot be read: not a DICOM file pydicom can read" in err
    assert "line 6: image 'colour.dcm' cannot be read: photometric interpretation PALETTE COLOR" in err
    assert digest(db_path) == before


def test_narrowing_the_window_tells_apart_levels_the_default_window_draws_alike() -> None:
    # two stored values 40 apart: one grey level of 8 bits cut from the full range, told apart in a narrow window
    levels = Levels(top=TOP_16, bits=16)
    image = Image.open(BytesIO(png(numpy.array([[32000, 32040]], dtype=numpy.uint16), levels)))
    values = image.convert("I").convert("F")
    wide, narrow = Tone().apply(values, levels), Tone().contrast(30).apply(values, levels)  # the narrowest window
    assert wide.getpixel((0, 0)) == wide.getpixel((1, 0))
    assert narrow.getpixel((1, 0)) - narrow.getpixel((0, 0)) >= 4
    assert Tone().contrast(30).describe(levels) == "W 2056 L 32896"  # 8 of the default window's 255 levels, about its middle


async def test_in_a_session_the_viewer_windows_the_dicom_in_the_files_values(
    capsys, tmp_path: Path, db_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    files = {
        key: write_dicom(
            tmp_path / f"{key}.dcm", ramp(), window=(2 * 32768 - 1024, 2 * 16384), rescale=(2, -1024), spacing=(0.2, 0.25)
        )
        for key in ("one", "two")
    }
    imported(capsys, db_path, tmp_path, files)
    async with live_app(db_path, (100, 30), task="rad", dataset="dicom") as (app, pilot, _):
        await expert_turn(pilot, app, j=2)
        await pilot.press("f")
        viewer = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, PictureScreen) else None, "the viewer")

        def status() -> str:
            return str(viewer.query_one("#viewer-status").render())

        await wait_for(pilot, lambda: "W 32768 L 64512" in status(), lambda: f"the file's window in the status: {status()}")
        assert "pixel 0.25×0.2 mm" in status()
        await pilot.press("full_stop")  # more contrast: the window narrowed by 1.25, in the file's values
        await wait_for(pilot, lambda: "W 26214.4 L " in status(), lambda: f"a narrower window: {status()}")
