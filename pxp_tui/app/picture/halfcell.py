"""Half-cell pictures made ready in the drawing thread: the lines textual-image's half-cell widget paints.

textual-image's half-cell renderer scales the image and builds one styled cell per pair of pixels when
the widget is painted, on the UI loop: about 28 ms for an X-ray of 58 x 29 cells at 160x48, on the
critical path of the next instance. Here the same cells (the same size, worked out by textual-image's
own geometry; the same scaling; the same styles) are built where the picture is drawn, in a thread,
and kept with it; the widget only hands out its lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from rich.color import Color
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from pxp_tui.app.picture import textual_image_internals as internals


@dataclass(frozen=True, eq=False)
class HalfcellPicture:
    """An image as lines of half-cell blocks, for a frame of a given size; ``size`` is the image's pixels."""

    size: tuple[int, int]
    cells: tuple[int, int]
    lines: tuple[Strip, ...]


def halfcell_picture(image: Any, cols: int, rows: int) -> HalfcellPicture:
    """``image`` (Pillow) as textual-image's half-cell renderer paints it in a frame of ``cols`` x ``rows``."""
    width, height = internals.fitted_cells(image.size, cols, rows)
    lines: list[Strip] = []
    if width and height:
        rgb = internals.scaled_rgb(image, width, height * 2)
        pixels = [[cast("tuple[int, int, int]", pixel) for pixel in row] for row in rgb]  # RGB mode: triplets
        styles: dict[tuple[tuple[int, int, int], tuple[int, int, int]], Style] = {}
        for upper, lower in zip(pixels[0::2], pixels[1::2], strict=True):
            segments = []
            for top, bottom in zip(upper, lower, strict=True):
                style = styles.get((top, bottom))
                if style is None:
                    colours = Color.from_triplet(ColorTriplet(*top)), Color.from_triplet(ColorTriplet(*bottom))
                    style = styles[(top, bottom)] = Style(color=colours[0], bgcolor=colours[1])
                segments.append(Segment("▀", style))
            lines.append(Strip(segments, width))
    return HalfcellPicture(image.size, (width, height), tuple(lines))


class HalfcellView(Widget):
    """Shows a :class:`HalfcellPicture`: its lines as they were built, nothing worked out when painted."""

    DEFAULT_CSS = "HalfcellView { width: auto; height: auto; }"

    def __init__(self, picture: HalfcellPicture, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.picture = picture

    def show(self, picture: HalfcellPicture) -> None:
        """Show ``picture`` instead: the same widget, its lines replaced (laid out again only for other cells)."""
        resized = picture.cells != self.picture.cells
        self.picture = picture
        if resized:
            self.clear_cached_dimensions()
        self.refresh(layout=resized)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.picture.cells[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.picture.cells[1]

    def render_line(self, y: int) -> Strip:
        lines = self.picture.lines
        return lines[y] if 0 <= y < len(lines) else Strip.blank(self.size.width)
