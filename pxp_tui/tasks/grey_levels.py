"""Grey images of more than 8 bits a pixel: how their stored values read, the window they are shown in, and their
8-bit rendering.

An imported DICOM file is stored as a 16-bit grey PNG (:mod:`pxp_tui.tasks.rad.dicom`) holding its pixels at full
depth, brighter values drawn brighter (a MONOCHROME1 file's values turned over), with a text chunk ``pxp-levels``
(:data:`KEY`) saying how they read: ``value = slope * stored + intercept`` in the file's units (its rescale), the
file's default window (centre and width, in those values), its pixel spacing. So a copy of the blackboard holds
everything the picture needs, and any image viewer shows the PNG the right way up. A 16-bit PNG without the chunk
reads as its stored values, its default window the full 16-bit range.

A window ``low``-``high`` in stored values draws ``low`` black and ``high`` white, linearly between (:func:`window`):
the one formula the picture's window/level and the machine's 8-bit rendering share.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from io import BytesIO
from typing import Any

#: the PNG text chunk holding an image's :class:`Levels`
KEY = "pxp-levels"
#: Pillow's modes of grey images of more than 8 bits a pixel
DEEP_MODES = frozenset({"I;16", "I;16L", "I;16B", "I", "F"})
#: the largest value of a 16-bit pixel
TOP_16 = 65535


@dataclass(frozen=True)
class Levels:
    """How an image's stored grey values read; the default (8 bits, as stored) reads them as they are."""

    #: the largest stored value (255 for 8 bits, 65535 for 16)
    top: int = 255
    #: ``value = slope * stored + intercept``: the file's values (Hounsfield units, detector counts...)
    slope: float = 1.0
    intercept: float = 0.0
    #: the values' unit, where the file names one (``HU``)
    unit: str = ""
    #: the default window: (centre, width) in values; None: the whole stored range
    window: tuple[float, float] | None = None
    #: millimetres between the centres of neighbouring pixels: (between rows, between columns), as DICOM gives them
    spacing: tuple[float, float] | None = None
    #: the tag the spacing came from (``PixelSpacing``, or ``ImagerPixelSpacing``: at the detector)
    spacing_tag: str = ""
    #: bits a pixel in the original file (12 for a 12-bit DICOM stored in 16)
    bits: int = 8

    @property
    def deep(self) -> bool:
        """Whether the stored values are more than 8 bits."""
        return self.top > 255

    def value(self, stored: float) -> float:
        """The file's value of a stored grey value."""
        return self.slope * stored + self.intercept

    def stored(self, value: float) -> float:
        """The stored grey value of a file's value."""
        return (value - self.intercept) / self.slope

    def default_window(self) -> tuple[int, int]:
        """The default window in stored values, (darkest, brightest): the file's, or the whole range."""
        if self.window is None:
            return 0, self.top
        centre, width = self.window
        ends = sorted((self.stored(centre - width / 2), self.stored(centre + width / 2)))
        low = round(ends[0])
        return low, max(low + 1, round(ends[1]))

    def text(self) -> str:
        """These levels as the PNG chunk holds them (JSON)."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def parse(cls, text: str) -> Levels:
        """The levels a PNG chunk holds; ValueError if it is not such a chunk."""
        try:
            raw = json.loads(text)
            levels = cls(
                top=int(raw["top"]),
                slope=float(raw["slope"]),
                intercept=float(raw["intercept"]),
                unit=str(raw.get("unit") or "")[:16],
                window=_pair(raw.get("window")),
                spacing=_pair(raw.get("spacing")),
                spacing_tag=str(raw.get("spacing_tag") or "")[:32],
                bits=int(raw.get("bits") or 16),
            )
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"not a {KEY} chunk: {exc}") from None
        numbers = (levels.slope, levels.intercept, *(levels.window or ()), *(levels.spacing or ()))
        if not 0 < levels.top <= TOP_16 or levels.slope == 0 or not all(math.isfinite(n) for n in numbers):
            raise ValueError(f"not a {KEY} chunk: values out of range")
        if levels.window is not None and levels.window[1] <= 0:
            raise ValueError(f"not a {KEY} chunk: a window of width {levels.window[1]}")
        return levels


def spacing_text(spacing: tuple[float, float]) -> str:
    """A pixel's size, width by height: ``0.143 mm`` (square), ``0.25×0.2 mm``."""
    row, column = spacing
    if row == column:
        return f"{column:.4g} mm"
    return f"{column:.4g}×{row:.4g} mm"


def _pair(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    first, second = value
    return float(first), float(second)


#: the levels of an 8-bit image
EIGHT_BIT = Levels()


def levels_of(image: Any) -> Levels:
    """How ``image`` (Pillow, opened) reads: its chunk's levels for a deep grey image, else 8 bits as stored.

    Only the header is read: for a PNG, the chunks before its pixels.
    """
    if image.mode not in DEEP_MODES:
        return EIGHT_BIT
    text = image.info.get(KEY)  # a PNG's text chunks before its pixels, kept by a copy of the image
    if isinstance(text, str):
        try:
            return Levels.parse(text)
        except ValueError:
            pass  # a chunk of another making: read the values as stored
    return Levels(top=TOP_16, bits=16)


def levels_of_bytes(data: bytes) -> Levels:
    """:func:`levels_of` the image file ``data`` (its header only)."""
    from PIL import Image

    with Image.open(BytesIO(data)) as image:
        return levels_of(image)


def window(image: Any, low: float, high: float, inverted: bool = False) -> Any:
    """``image`` (Pillow: grey of any depth, or RGB) drawn in the window ``low``-``high`` of its stored values:
    ``low`` and below black, ``high`` and above white, linearly between; ``inverted`` swaps black and white.
    A grey image comes out 8-bit grey (``L``), an RGB one RGB."""
    from PIL import Image

    if image.mode in DEEP_MODES:
        import numpy

        values = numpy.asarray(image, dtype=numpy.float64)
        shown = numpy.clip(numpy.rint((values - low) * 255 / (high - low)), 0, 255).astype(numpy.uint8)
        return Image.fromarray(255 - shown if inverted else shown)
    table = [min(255, max(0, round((value - low) * 255 / (high - low)))) for value in range(256)]
    if inverted:
        table = [255 - v for v in table]
    grey = image if image.mode in ("L", "RGB") else image.convert("L" if image.mode in ("1", "P", "LA") else "RGB")
    return grey.point(table * len(grey.getbands()))


def rendered(image: Any) -> Any:
    """``image`` (Pillow, opened) as it is shown by default: a deep grey image in its default window as 8-bit grey;
    any other image as it is."""
    if image.mode not in DEEP_MODES:
        return image
    low, high = levels_of(image).default_window()
    return window(image, low, high)


def png(pixels: Any, levels: Levels) -> bytes:
    """A 16-bit grey PNG of ``pixels`` (a numpy array of stored values, 0 to 65535) holding ``levels`` in its chunk."""
    import numpy
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text(KEY, levels.text())
    out = BytesIO()
    Image.fromarray(numpy.ascontiguousarray(pixels, dtype=numpy.uint16)).save(out, format="PNG", pnginfo=info)
    return out.getvalue()
