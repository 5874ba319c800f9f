"""The X-ray at its physical size (Z in the full-screen picture): each image pixel ``spacing * dpi / 25.4`` screen
pixels across and down, the screen's resolution stated by the expert (``PXP_SCREEN_DPI`` or ``screen_dpi`` in the
settings file); where the spacing or the resolution is missing, or the terminal draws half-cell blocks, a notice says
why and the view stays as it was; a value that is no resolution is refused saying where it was read. The DICOM files
are written by the test (pydicom)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy
import pytest

from pxp_harness.app_helpers import live_app, wait_for
from pxp_harness.dicom_files import write_dicom
from pxp_harness.internals import notifications
from pxp_tui.app.picture.physical import DPI_ENV, Physical, parse_dpi, screen_dpi
from pxp_tui.app.picture.viewer import PictureScreen
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.picture.zoom import View, in_whole_cells

from .test_app_picture_viewer import drawn, open_viewer
from .test_rad_dicom import imported

pytest.importorskip("pydicom")


@pytest.fixture(autouse=True)
def _no_dpi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DPI_ENV, raising=False)  # the machine's own setting is not the test's


def status(viewer: PictureScreen) -> str:
    return str(viewer.query_one("#viewer-status").render())


async def told(pilot, app, words: str) -> str:
    """The notice containing ``words``, once shown."""
    return await wait_for(
        pilot, lambda: next((n for n in notifications(app) if words in n), None), lambda: f"{words!r} in {notifications(app)}"
    )


def white_extent(viewer: PictureScreen) -> tuple[int, int]:
    """(width, height) in screen pixels of the white image in the picture given to the terminal (black around it)."""
    image = numpy.asarray(viewer.query_one("#viewer-picture .picture-image").image.convert("L"))
    rows, cols = numpy.nonzero(image > 128)
    return int(cols.max() - cols.min() + 1), int(rows.max() - rows.min() + 1)


async def test_the_physical_size_is_the_spacing_at_the_screens_dpi_and_the_status_says_so(
    capsys, tmp_path: Path, db_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("PXP_IMAGES", "sixel")  # cells of 10x20 pixels
    white = numpy.full((48, 64), 60000)  # the whole image white in its window: its extent on the screen is measurable
    files = {
        key: write_dicom(tmp_path / f"{key}.dcm", white, window=(30000, 20000), spacing=(0.2, 0.25)) for key in ("one", "two")
    }
    imported(capsys, db_path, tmp_path, files)
    async with live_app(db_path, (100, 30), task="rad", dataset="dicom") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        await drawn(pilot, viewer)
        fitted = status(viewer)
        assert fitted.startswith("fit") and "pixel 0.25×0.2 mm" in fitted

        # no resolution stated: said how to state it, the view as it was
        await pilot.press("Z")
        await told(pilot, app, f"{DPI_ENV}=109")
        assert viewer.view == View() and status(viewer) == fitted

        # a resolution that is none: refused, naming where it was read and the value
        monkeypatch.setenv(DPI_ENV, "96dpi")
        await pilot.press("Z")
        await told(pilot, app, f"{DPI_ENV} is '96dpi', not a screen resolution")
        assert viewer.view == View() and status(viewer) == fitted

        # 254 dpi: 10 screen pixels a millimetre; a column 0.25 mm apart, a row 0.2 mm
        monkeypatch.setenv(DPI_ENV, "254")
        await pilot.press("Z")
        await wait_for(pilot, lambda: "physical size" in status(viewer), lambda: f"the physical size: {status(viewer)}")
        await drawn(pilot, viewer)
        assert status(viewer).startswith("physical size 2.5:1 across, 2:1 down at 254 dpi")
        assert white_extent(viewer) == (160, 96)  # 64 x 0.25 mm = 16 mm wide, 48 x 0.2 mm = 9.6 mm high
        surface = viewer.query_one(Picture).surface
        assert surface is not None
        cell = (surface.pixels[0] // surface.cols, surface.pixels[1] // surface.rows)
        given = viewer.query_one("#viewer-picture .picture-image")
        assert (given.size.width * cell[0], given.size.height * cell[1]) == given.image.size  # the terminal scales nothing

        await pilot.press("0")  # the fit again: no longer the physical size
        await wait_for(pilot, lambda: status(viewer).startswith("fit"), lambda: f"the fit: {status(viewer)}")


async def test_an_image_without_pixel_spacing_has_no_physical_size(db_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "sixel")
    monkeypatch.setenv(DPI_ENV, "109")
    async with live_app(db_path, (100, 30), task="rad") as (app, pilot, _):  # the demo's phantom: a PNG, no spacing
        viewer = await open_viewer(pilot, app)
        await drawn(pilot, viewer)
        before = status(viewer)
        await pilot.press("Z")
        await told(pilot, app, "this image has none")
        assert any("pixel spacing" in note for note in notifications(app))
        assert viewer.view == View() and status(viewer) == before


async def test_in_half_cell_blocks_the_physical_size_is_refused_saying_why(
    capsys, tmp_path: Path, db_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    monkeypatch.setenv(DPI_ENV, "109")
    files = {key: write_dicom(tmp_path / f"{key}.dcm", numpy.full((48, 64), 1000), spacing=(0.2, 0.2)) for key in ("one", "two")}
    imported(capsys, db_path, tmp_path, files)
    async with live_app(db_path, (100, 30), task="rad", dataset="dicom") as (app, pilot, _):
        viewer = await open_viewer(pilot, app)
        await drawn(pilot, viewer)
        before = status(viewer)
        await pilot.press("Z")
        await told(pilot, app, "half-cell blocks")
        assert viewer.view == View() and status(viewer) == before


@pytest.mark.parametrize("given", ["", "abc", "96dpi", "0", "-96", "nan", "inf", "49", "5000", "1e400"])
def test_a_value_that_is_no_screen_resolution_is_refused_saying_what_to_give(given: str) -> None:
    with pytest.raises(ValueError, match=r"^PXP_SCREEN_DPI is .*, not a screen resolution: give the screen's pixels per inch"):
        parse_dpi(given, DPI_ENV)


def test_the_resolution_is_read_from_the_environment_first_then_the_settings(monkeypatch, tmp_path: Path) -> None:
    settings = tmp_path / "config" / "settings.json"
    assert screen_dpi() is None
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"screen_dpi": 127}), encoding="utf-8")
    assert screen_dpi() == 127
    monkeypatch.setenv(DPI_ENV, " 96.5 ")
    assert screen_dpi() == 96.5
    monkeypatch.delenv(DPI_ENV)
    settings.write_text(json.dumps({"screen_dpi": "high"}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^screen_dpi in .*settings\.json is 'high', not a screen resolution"):
        screen_dpi()


def test_the_scale_is_the_spacing_in_inches_times_the_dpi_on_each_axis() -> None:
    square = Physical((0.143, 0.143), 96)
    assert square.scales[0] == square.scales[1] == pytest.approx(0.143 * 96 / 25.4)
    assert square.words() == "physical size 0.54:1 at 96 dpi"
    assert Physical((0.2, 0.25), 254).scales == pytest.approx((2.5, 2.0))  # (rows 0.2 mm apart, columns 0.25 mm)
    assert Physical((0.1, 0.1), 254, at_detector=True).words() == "physical size 1:1 at 254 dpi (the detector's size)"


def test_a_view_at_two_scales_shows_the_region_they_give_pans_at_them_and_a_zoom_step_leaves_them() -> None:
    image, area = (1000, 1000), (500, 400)
    view = View().at_scales((2.5, 2.0))
    assert view.visible(image, area)[:2] == (200, 200)  # 500 / 2.5 across, 400 / 2 down
    box, size, cells = in_whole_cells(view, (2.5, 2.0), image, area, (10, 20))
    assert box == (400, 400, 600, 600) and size == (500, 400) and cells == (500, 400)
    panned = view.panned(0.25, 0, image, area)
    assert panned.scales == (2.5, 2.0) and panned.centre[0] == pytest.approx(0.55)  # a quarter of 200 pixels: 50
    assert view.zoomed(1, image, area).scales is None and view.actual(image, area).scales is None
