"""Window/level (brightness and contrast) and invert, as radiology viewers have them. Pure functions.

A :class:`Tone` is the window of grey levels shown, from ``low`` (drawn black) to ``high`` (drawn white),
on the 0-255 scale of an 8-bit image: its **width** is the contrast (narrower: more contrast), its
**level** (centre) the brightness (lower: brighter). Grey levels below the window are black, above it
white, in between spread linearly over 0-255. ``inverted`` swaps black and white (bone dark, air light).
The default, 0-255 not inverted, shows the image as it is.

An image of more than 8 bits a pixel (a DICOM instance's 16-bit PNG, :mod:`pxp_tui.tasks.grey_levels`) is windowed
on its own stored values: 0-255 is its default window (the file's), so the same keys narrow, widen and move that
window over the full depth, and the values shown are the file's (:meth:`Tone.describe` with its levels).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pxp_tui.tasks.grey_levels import Levels, window

#: the narrowest window, in grey levels (narrower shows little more than a threshold)
NARROWEST = 8
#: one brightness step, in grey levels, and one contrast step (the width multiplied or divided by it)
LEVEL_STEP = 16
WIDTH_STEP = 1.25


@dataclass(frozen=True)
class Tone:
    low: int = 0
    high: int = 255
    inverted: bool = False

    @property
    def width(self) -> int:
        return self.high - self.low

    @property
    def level(self) -> float:
        return (self.low + self.high) / 2

    @property
    def plain(self) -> bool:
        """Whether the image is shown as it is."""
        return self == Tone()

    def window(self, width: float, level: float) -> Tone:
        """A window of ``width`` grey levels about ``level`` (at least :data:`NARROWEST` wide)."""
        width = max(NARROWEST, round(width))
        low = round(level - width / 2)
        return replace(self, low=low, high=low + width)

    def brighter(self, steps: int) -> Tone:
        """The window moved ``steps`` * :data:`LEVEL_STEP` grey levels down (brighter) or up (< 0: darker)."""
        return self.window(self.width, self.level - steps * LEVEL_STEP)

    def contrast(self, steps: int) -> Tone:
        """The window narrowed (``steps`` > 0: more contrast) or widened by :data:`WIDTH_STEP` per step."""
        return self.window(self.width / WIDTH_STEP**steps, self.level)

    def invert(self) -> Tone:
        return replace(self, inverted=not self.inverted)

    def table(self) -> list[int]:
        """The grey level shown for each grey level 0-255 of the image."""
        shown = [min(255, max(0, round((value - self.low) * 255 / self.width))) for value in range(256)]
        return [255 - v for v in shown] if self.inverted else shown

    def apply(self, image: Any, levels: Levels | None = None) -> Any:
        """``image`` (Pillow, grey or RGB) as this tone shows it (the same image when :attr:`plain`); with the
        ``levels`` of a deep grey image (its values, any Pillow mode of them), in 8-bit grey."""
        if levels is not None and levels.deep:
            low, high = self.stored(levels)
            return window(image, low, high, self.inverted)
        if self.plain:
            return image
        return image.point(self.table() * len(image.getbands()))

    def stored(self, levels: Levels) -> tuple[float, float]:
        """This window in the stored values of an image of ``levels``, 0-255 being its default window."""
        darkest, brightest = levels.default_window()
        step = (brightest - darkest) / 255
        return darkest + self.low * step, darkest + self.high * step

    def describe(self, levels: Levels | None = None) -> str:
        """``W 255 L 128`` (and ``inverted``): the values shown to the expert; for a deep image, in its file's
        values and unit (``W 400 L 40 HU``)."""
        if levels is not None and levels.deep:
            low, high = (levels.value(end) for end in self.stored(levels))
            unit = f" {levels.unit}" if levels.unit else ""
            text = f"W {abs(high - low):.6g} L {(low + high) / 2:.6g}{unit}"
        else:
            text = f"W {self.width} L {self.level:g}"
        return text + " inverted" if self.inverted else text
