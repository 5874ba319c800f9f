"""Zoom and pan over an X-ray: which region of the original is cropped, and the size it is shown at."""

from __future__ import annotations

import pytest

from pxp_tui.app.picture.zoom import LEVELS, View, exact_scale, in_whole_cells_at

XRAY = (630, 562)  # the papers' radiographs are about this size
AREA = (160, 92)  # 160x46 cells of half-cell blocks


def test_at_zoom_1_the_whole_image_fits_keeping_its_shape() -> None:
    box, size = View().crop(XRAY, AREA)
    assert box == (0, 0, 630, 562)
    assert size[1] == AREA[1] and size[0] <= AREA[0]
    assert size[0] / size[1] == pytest.approx(630 / 562, rel=0.02)


def test_zooming_in_crops_a_smaller_region_of_the_original_about_the_same_centre() -> None:
    (l1, t1, r1, b1), _ = View().zoomed(2).crop(XRAY, AREA)  # 1 -> 1.5 -> 2
    assert View().zoomed(2).zoom == 2
    assert (b1 - t1) == pytest.approx(562 / 2, abs=1)
    assert (l1 + r1) / 2 == pytest.approx(315, abs=1) and (t1 + b1) / 2 == pytest.approx(281, abs=1)
    (l2, t2, r2, b2), size = View(zoom=8).crop(XRAY, AREA)
    assert (r2 - l2) < (r1 - l1) and (b2 - t2) < (b1 - t1)
    assert size[0] <= AREA[0] and size[1] <= AREA[1]


def test_zoom_levels_stop_at_both_ends() -> None:
    assert View().zoomed(-3).zoom == 1
    assert View().zoomed(100).zoom == LEVELS[-1]
    assert View(zoom=4).zoomed(-1).zoom == 3


def test_panning_moves_a_quarter_of_the_region_and_stays_in_the_image() -> None:
    view = View(zoom=4)
    (left, top, right, _), _ = view.crop(XRAY, AREA)
    moved = view.panned(0.25, 0, XRAY, AREA)
    (left2, top2, _right2, _), _ = moved.crop(XRAY, AREA)
    assert left2 - left == pytest.approx((right - left) / 4, abs=1) and top2 == top
    for _ in range(20):
        moved = moved.panned(0.25, 0.25, XRAY, AREA)
    box, _ = moved.crop(XRAY, AREA)
    assert box[2] == 630 and box[3] == 562  # at the bottom right corner, not beyond it


def test_dragging_moves_the_picture_with_the_mouse() -> None:
    view = View(zoom=4)
    (left, top, _, _), _ = view.crop(XRAY, AREA)
    _, _, scale = view.visible(XRAY, AREA)
    dragged = view.dragged(10, 0, XRAY, AREA)  # the mouse moved 10 pixels right: the image follows it
    (left2, top2, _, _), _ = dragged.crop(XRAY, AREA)
    assert left - left2 == pytest.approx(10 / scale, abs=1) and top2 == top


PHANTOM = (256, 256)
SCREEN = (720, 765)  # 90x45 cells of 8x17 pixels (xterm's, DejaVu Sans Mono 10)
CELL = (8, 17)


def test_the_zoom_steps_are_the_fit_and_exact_multiples_of_one_to_one() -> None:
    def steps(view: View, image, key: int, times: int) -> list[float | None]:
        seen = []
        for _ in range(times):
            view = view.zoomed(key, image, SCREEN)
            seen.append(exact_scale(view, image, SCREEN))
        return seen

    actual = View().actual(PHANTOM, SCREEN)
    assert exact_scale(actual, PHANTOM, SCREEN) == 1
    assert steps(actual, PHANTOM, 1, 4) == [2, None, 3, 4]  # the fit (2.8 here) among them
    assert steps(View(), PHANTOM, -1, 3) == [2, 1, 1]  # a small image: no smaller than 1:1
    large = (2000, 1800)
    assert steps(View(), large, 1, 3) == [0.5, 1, 2]
    assert View().zoomed(-1, large, SCREEN).zoom == 1  # a large one: no smaller than the fit


@pytest.mark.parametrize("scale", [1, 2, 3, 0.5])
def test_at_an_exact_scale_the_picture_is_that_scale_of_its_crop_in_whole_cells(scale: float) -> None:
    image = PHANTOM if scale >= 1 else (2000, 1800)
    view = View(zoom=scale / min(SCREEN[0] / image[0], SCREEN[1] / image[1]))
    assert exact_scale(view, image, SCREEN) == scale
    (left, top, right, bottom), size, cells = in_whole_cells_at(view, scale, image, SCREEN, CELL)
    assert size == (round((right - left) * scale), round((bottom - top) * scale))
    assert cells[0] % CELL[0] == 0 and cells[1] % CELL[1] == 0  # whole cells: the terminal scales nothing
    assert size[0] <= cells[0] <= SCREEN[0] and size[1] <= cells[1] <= SCREEN[1]
    assert cells[0] - size[0] < max(CELL[0], scale) and cells[1] - size[1] < max(CELL[1], scale)  # only a frame around it
