"""Zoom and pan over an image: which region of the original is shown, and at what size. Pure functions.

A :class:`View` is a zoom level (1 = the whole image fits the area; :meth:`View.actual` gives 1:1, one
image pixel per pixel of the area) and a centre (fractions of the image's width and height). :meth:`View.crop` gives
the box of the original image to crop with Pillow and the size to scale it to for an area of so many pixels, so that
zooming in shows the original's own detail, not an enlargement of what was on the screen. The zoom's steps, given
the image and the area, are the fit and the exact scales of :data:`SCALES` (2:1, 3:1, ..., 1:2, ...): each image
pixel is then a whole number of screen pixels, or a whole number of image pixels one screen pixel
(:func:`exact_scale`, :func:`in_whole_cells_at`). A view may instead hold scales of its own, across and down, whatever
the area (:meth:`View.at_scales`: the physical size), drawn in whole cells likewise (:func:`in_whole_cells`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

#: the zoom levels, in steps, where the image's size is not known yet (relative to the fit)
LEVELS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
#: the zoom's steps beside the fit, in screen pixels per image pixel: exact multiples of 1:1, and exact fractions
SCALES = (1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class View:
    zoom: float = 1.0
    centre: tuple[float, float] = (0.5, 0.5)
    #: screen pixels per image pixel (across, down) held whatever the area's size, the zoom unused; None: the zoom's
    scales: tuple[float, float] | None = None

    def zoomed(self, steps: int, image: tuple[int, int] | None = None, area: tuple[int, int] | None = None) -> View:
        """``steps`` levels in (> 0) or out (< 0), about the same centre. Given the ``image``'s and the ``area``'s
        pixels, the levels are the fit and the exact scales of :data:`SCALES` from 1:1 or the fit, whichever is smaller
        (a small image: 1:1, 2:1, the fit, 3:1...; a large one: the fit, 1:2, 1:1, 2:1...)."""
        if image is None or area is None:
            level = min(range(len(LEVELS)), key=lambda i: abs(LEVELS[i] - self.zoom))
            return replace(self, zoom=LEVELS[max(0, min(len(LEVELS) - 1, level + steps))], scales=None)
        fit = min(area[0] / image[0], area[1] / image[1])
        ladder = sorted({fit, *(scale for scale in SCALES if scale >= min(fit, 1.0) * (1 - 1e-9))})
        now = self.visible(image, area)[2]  # (held scales: the step from the one across)
        if steps > 0:
            above = [i for i, scale in enumerate(ladder) if scale > now * (1 + 1e-9)]
            level = min(above[0] + steps - 1, len(ladder) - 1) if above else len(ladder) - 1
        else:
            below = [i for i, scale in enumerate(ladder) if scale < now * (1 - 1e-9)]
            level = max(below[-1] + steps + 1, 0) if below else 0
        return replace(self, zoom=ladder[level] / fit, scales=None)

    def actual(self, image: tuple[int, int], area: tuple[int, int]) -> View:
        """One image pixel per pixel of ``area`` (1:1), about the same centre."""
        (width, height), (aw, ah) = image, area
        return replace(self, zoom=1 / min(aw / width, ah / height), scales=None)

    def at_scales(self, scales: tuple[float, float]) -> View:
        """``scales`` screen pixels per image pixel, across and down (a physical size), about the same centre."""
        return replace(self, scales=scales)

    def is_actual(self, image: tuple[int, int], area: tuple[int, int]) -> bool:
        """Whether this view shows one image pixel per pixel of ``area``."""
        return abs(self.visible(image, area)[2] - 1) < 1e-9

    def visible(self, image: tuple[int, int], area: tuple[int, int]) -> tuple[float, float, float]:
        """(width, height) of the image region shown in ``area`` pixels, in image pixels, and the scale (area px per image
        px; across, where the view holds two: :meth:`scales_in`)."""
        (width, height), (aw, ah) = image, area
        across, down = self.scales_in(image, area)
        return min(width, aw / across), min(height, ah / down), across

    def scales_in(self, image: tuple[int, int], area: tuple[int, int]) -> tuple[float, float]:
        """Area pixels per image pixel (across, down): the view's own scales, or the zoom's (the same both ways)."""
        if self.scales is not None:
            return self.scales
        scale = min(area[0] / image[0], area[1] / image[1]) * self.zoom
        return scale, scale

    def clamped(self, image: tuple[int, int], area: tuple[int, int]) -> View:
        """The same view with its centre moved as little as needed for the region shown to stay in the image."""
        vw, vh, _ = self.visible(image, area)
        (width, height), (cx, cy) = image, self.centre
        x = min(max(cx * width, vw / 2), width - vw / 2) / width
        y = min(max(cy * height, vh / 2), height - vh / 2) / height
        return replace(self, centre=(x, y))

    def panned(self, dx: float, dy: float, image: tuple[int, int], area: tuple[int, int]) -> View:
        """Moved by ``dx``, ``dy`` times the region shown (0.25: a quarter of it), staying in the image."""
        vw, vh, _ = self.visible(image, area)
        cx, cy = self.clamped(image, area).centre
        return replace(self, centre=(cx + dx * vw / image[0], cy + dy * vh / image[1])).clamped(image, area)

    def dragged(self, dx: float, dy: float, image: tuple[int, int], area: tuple[int, int]) -> View:
        """Moved so that the picture follows a drag of ``dx``, ``dy`` area pixels."""
        across, down = self.scales_in(image, area)
        cx, cy = self.clamped(image, area).centre
        return replace(self, centre=(cx - dx / across / image[0], cy - dy / down / image[1])).clamped(image, area)

    def crop(self, image: tuple[int, int], area: tuple[int, int]) -> tuple[Box, tuple[int, int]]:
        """The box of the image to show in ``area`` pixels, and the size to scale it to (at most ``area``)."""
        vw, vh, _ = self.visible(image, area)
        across, down = self.scales_in(image, area)
        cx, cy = self.clamped(image, area).centre
        left, top = round(cx * image[0] - vw / 2), round(cy * image[1] - vh / 2)
        right, bottom = min(image[0], left + max(1, round(vw))), min(image[1], top + max(1, round(vh)))
        left, top = max(0, left), max(0, top)
        size = (max(1, min(area[0], round((right - left) * across))), max(1, min(area[1], round((bottom - top) * down))))
        return (left, top, right, bottom), size


def exact_scale(view: View, image: tuple[int, int], area: tuple[int, int]) -> float | None:
    """The view's scale (screen pixels per image pixel) if it is one of :data:`SCALES` (1:1, 2:1, 1:2...), else None
    (and None for a view holding scales of its own: :meth:`View.at_scales`)."""
    if view.scales is not None:
        return None
    _, _, scale = view.visible(image, area)
    return next((s for s in SCALES if abs(scale - s) < 1e-6 * s), None)


def in_whole_cells_at(
    view: View, scale: float, image: tuple[int, int], area: tuple[int, int], cell: tuple[int, int]
) -> tuple[Box, tuple[int, int], tuple[int, int]]:
    """At an exact ``scale`` (:func:`exact_scale`), the box of ``image`` to show, the size to scale it to (exactly
    ``scale`` times it, rounded to whole image pixels when shrinking), and the size in whole cells of ``cell`` pixels
    that holds it (the image's whole cells, at most the ``area``'s; what is left around the image, less than a cell or
    than one image pixel, is black): the terminal then scales nothing."""
    box, size, cells = in_whole_cells(view, (scale, scale), image, area, cell)
    if scale < 1:
        step = round(1 / scale)
        size = ((box[2] - box[0]) // step or 1, (box[3] - box[1]) // step or 1)
    return box, size, cells


def in_whole_cells(
    view: View, scales: tuple[float, float], image: tuple[int, int], area: tuple[int, int], cell: tuple[int, int]
) -> tuple[Box, tuple[int, int], tuple[int, int]]:
    """At any ``scales`` (screen pixels per image pixel, across and down: a physical size), the box of ``image`` to
    show, the size to resample it to (the box's times the scales, rounded), and the size in whole cells of ``cell``
    pixels that holds it (the image's whole cells, at most the ``area``'s; black around it)."""
    width, height = (
        max(c, min(-(-math.ceil(i * s) // c) * c, a // c * c)) for a, i, s, c in zip(area, image, scales, cell, strict=True)
    )
    region = tuple(min(i, max(1, math.floor(w / s))) for i, w, s in zip(image, (width, height), scales, strict=True))
    cx, cy = view.centre
    left = min(max(0, round(cx * image[0] - region[0] / 2)), image[0] - region[0])
    top = min(max(0, round(cy * image[1] - region[1] / 2)), image[1] - region[1])
    size = tuple(max(1, min(w, round(r * s))) for r, s, w in zip(region, scales, (width, height), strict=True))
    return (left, top, left + region[0], top + region[1]), (size[0], size[1]), (width, height)
