"""Zoom and pan over an image: which region of the original is shown, and at what size. Pure functions.

A :class:`View` is a zoom level (1 = the whole image fits the area; :meth:`View.actual` gives 1:1, one
image pixel per pixel of the area) and a centre (fractions of the image's width and height). :meth:`View.crop` gives the box of the original image to crop with Pillow
and the size to scale it to for an area of so many pixels, so that zooming in shows the original's
own detail, not an enlargement of what was on the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: the zoom levels, in steps
LEVELS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class View:
    zoom: float = 1.0
    centre: tuple[float, float] = (0.5, 0.5)

    def zoomed(self, steps: int) -> View:
        """``steps`` levels in (> 0) or out (< 0), about the same centre."""
        level = min(range(len(LEVELS)), key=lambda i: abs(LEVELS[i] - self.zoom))
        return replace(self, zoom=LEVELS[max(0, min(len(LEVELS) - 1, level + steps))])

    def actual(self, image: tuple[int, int], area: tuple[int, int]) -> View:
        """One image pixel per pixel of ``area`` (1:1), about the same centre."""
        (width, height), (aw, ah) = image, area
        return replace(self, zoom=1 / min(aw / width, ah / height))

    def is_actual(self, image: tuple[int, int], area: tuple[int, int]) -> bool:
        """Whether this view shows one image pixel per pixel of ``area``."""
        return abs(self.visible(image, area)[2] - 1) < 1e-9

    def visible(self, image: tuple[int, int], area: tuple[int, int]) -> tuple[float, float, float]:
        """(width, height) of the image region shown in ``area`` pixels, in image pixels, and the scale (area px per image px)."""
        (width, height), (aw, ah) = image, area
        scale = min(aw / width, ah / height) * self.zoom
        return min(width, aw / scale), min(height, ah / scale), scale

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
        _, _, scale = self.visible(image, area)
        cx, cy = self.clamped(image, area).centre
        return replace(self, centre=(cx - dx / scale / image[0], cy - dy / scale / image[1])).clamped(image, area)

    def crop(self, image: tuple[int, int], area: tuple[int, int]) -> tuple[Box, tuple[int, int]]:
        """The box of the image to show in ``area`` pixels, and the size to scale it to (at most ``area``)."""
        vw, vh, scale = self.visible(image, area)
        cx, cy = self.clamped(image, area).centre
        left, top = round(cx * image[0] - vw / 2), round(cy * image[1] - vh / 2)
        right, bottom = min(image[0], left + max(1, round(vw))), min(image[1], top + max(1, round(vh)))
        left, top = max(0, left), max(0, top)
        size = (max(1, min(area[0], round((right - left) * scale))), max(1, min(area[1], round((bottom - top) * scale))))
        return (left, top, right, bottom), size


def in_whole_cells(box: Box, cell: tuple[int, int], image: tuple[int, int]) -> tuple[Box, tuple[int, int]]:
    """``box`` (shown 1:1) grown to whole cells of ``cell`` pixels, so that the terminal scales nothing: the box
    of ``image`` to crop (grown within the image, moved back inside it if it would leave it) and the size in whole
    cells to show it at (larger than the crop where the image is smaller: the rest is filled around it)."""
    left, top, right, bottom = box
    size = (-(-(right - left) // cell[0]) * cell[0], -(-(bottom - top) // cell[1]) * cell[1])
    width, height = min(size[0], image[0]), min(size[1], image[1])
    left, top = max(0, min(left, image[0] - width)), max(0, min(top, image[1] - height))
    return (left, top, left + width, top + height), size
