"""What a task draws on, and pictures made of characters.

A task draws a picture for a :class:`Surface`: its size in terminal cells and in pixels, and how the
terminal shows pictures (Sixel or the kitty protocol at full resolution; half-cell blocks or the
unicode fallback at two pixels per cell). The result is image bytes (any Pillow-readable format) or a
Pillow image, or
a :class:`CellPicture` (characters with styles) where the task draws better in characters than in
pixels, or None. Drawing is a pure function of (task, instance or prediction, surface): its result
can be cached under that key and prepared ahead of time.

:func:`braille` turns a bitmap into Unicode braille characters (2 x 4 dots per cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from PIL.Image import Image

#: renderers that show pictures at full resolution, and those that show two pixels per cell
FINE = ("sixel", "tgp", "pixels")
COARSE = ("halfcell", "unicode")


@dataclass(frozen=True)
class Surface:
    """Where a picture is shown: ``cols`` x ``rows`` cells of ``pixels`` (width, height), drawn by ``renderer``.

    ``renderer`` is ``sixel``, ``tgp`` (the kitty graphics protocol), ``halfcell``, ``unicode``, or
    ``pixels`` (no terminal: an image file, a desktop viewer).
    """

    cols: int
    rows: int
    pixels: tuple[int, int]
    renderer: str = "pixels"

    @classmethod
    def of(cls, size: Surface | tuple[int, int]) -> Surface:
        """``size`` as a surface: a (width, height) in pixels is an image of that size, not in a terminal."""
        if isinstance(size, Surface):
            return size
        width, height = int(size[0]), int(size[1])
        return cls(max(1, width // 10), max(1, height // 20), (width, height), "pixels")

    @property
    def coarse(self) -> bool:
        """Whether the terminal shows this surface at two pixels per cell (half-cell blocks, unicode)."""
        return self.renderer in COARSE


@dataclass(frozen=True)
class CellPicture:
    """A picture made of characters: ``rows`` of runs ``(text, style)``, each row ``width`` cells wide.

    Styles are Rich/Textual style strings ("bold #ff5f5f"); an empty style is the terminal's foreground.
    """

    rows: tuple[tuple[tuple[str, str], ...], ...]

    @property
    def width(self) -> int:
        return max((sum(len(text) for text, _ in row) for row in self.rows), default=0)

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def lines(self) -> list[str]:
        """The characters of each row, without styles."""
        return ["".join(text for text, _ in row) for row in self.rows]

    def find(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` occurs, as (column, row) of its first character, row by row."""
        found = []
        for y, line in enumerate(self.lines):
            x = line.find(text)
            while x >= 0:
                found.append((x, y))
                x = line.find(text, x + 1)
        return found


#: what a task draws: image bytes, a Pillow image, characters, or nothing
Drawing: TypeAlias = "bytes | Image | CellPicture | None"

#: the bit of each braille dot in U+2800 + bits, by its row (0-3) and column (0-1) in the cell
_BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def braille(dots: Any) -> list[str]:
    """The rows of braille characters showing ``dots``, a Pillow image of 2 x 4 pixels per cell (lit: non-zero).

    An empty cell is the blank braille pattern (U+2800), not a space: fonts give every braille pattern
    one width, so a row keeps its columns even where a font (or an SVG screenshot) lays text out with
    its own advances.
    """
    import numpy

    lit = numpy.asarray(dots.convert("L")) > 0
    rows, cols = lit.shape[0] // 4, lit.shape[1] // 2
    cells = lit[: 4 * rows, : 2 * cols].reshape(rows, 4, cols, 2)
    codes = (cells * numpy.array(_BRAILLE_BITS)[None, :, None, :]).sum(axis=(1, 3)) + 0x2800
    return ["".join(map(chr, row)) for row in codes.tolist()]
