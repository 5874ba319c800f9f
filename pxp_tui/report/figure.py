"""The "intelligibility versus message bound" figure as a PNG, drawn with Pillow.

One panel per report column; in each, the number of sessions in each class when only messages
``j <= j*`` are kept, against ``j*``; repeated runs draw the median with min-max error bars, as in
the papers' figure. Pillow is already a dependency; the figure needs nothing heavier.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from pxp_tui.report.columns import Column
from pxp_tui.report.render import SHORT

#: class -> colour (Okabe-Ito, readable by colour-blind readers)
COLOURS = {
    "one_way_human": (0, 114, 178),
    "one_way_machine": (230, 159, 0),
    "two_way": (0, 0, 0),
    "strong_human": (86, 180, 233),
    "strong_machine": (213, 94, 0),
    "ultra_strong_human": (0, 158, 115),
    "ultra_strong_machine": (204, 121, 167),
}
PANEL = (440, 330)
MARGIN = (52, 44, 18, 44)  # left, top, right, bottom of the plot area inside a panel
PER_ROW = 3
LEGEND = 56


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _panel(draw: ImageDraw.ImageDraw, origin: tuple[int, int], column: Column) -> None:
    x0, y0 = origin
    left, top, right, bottom = MARGIN
    width, height = PANEL[0] - left - right, PANEL[1] - top - bottom
    px, py = x0 + left, y0 + top
    curve = column.curve
    n = max(len(curve), 1)
    step = max(1, math.ceil(max([p.sessions.high for p in curve] + [1]) / 5))
    ymax = step * math.ceil(max([p.sessions.high for p in curve] + [1]) / step)
    font, small = _font(14), _font(11)
    draw.text((x0 + PANEL[0] // 2, y0 + 6), column.label, fill="black", font=font, anchor="mt")

    def xy(j: float, value: float) -> tuple[float, float]:
        x = px + (j - 1) / max(n - 1, 1) * width
        return x, py + height - value / ymax * height

    draw.rectangle([px, py, px + width, py + height], outline=(120, 120, 120))
    for j in range(1, n + 1):
        x, _ = xy(j, 0)
        draw.line([x, py + height, x, py + height + 4], fill="black")
        draw.text((x, py + height + 6), str(j), fill="black", font=small, anchor="mt")
    for tick in range(0, ymax + 1, step):
        _, y = xy(1, tick)
        draw.line([px - 4, y, px, y], fill="black")
        draw.line([px, y, px + width, y], fill=(230, 230, 230))
        draw.text((px - 6, y), str(tick), fill="black", font=small, anchor="rm")
    draw.text((px + width // 2, py + height + 22), "message bound j*", fill="black", font=small, anchor="mt")
    draw.text((px - 6, py - 8), "sessions", fill="black", font=small, anchor="rb")
    for index, (name, colour) in enumerate(COLOURS.items()):
        shift = (index - 3) * 0.03  # keep error bars of different classes apart
        points = [xy(j + shift, p.classes[name].median) for j, p in enumerate(curve, start=1)]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        for j, point in enumerate(curve, start=1):
            value = point.classes[name]
            if value.low != value.high:
                (x, lo), (_, hi) = xy(j + shift, value.low), xy(j + shift, value.high)
                draw.line([x, lo, x, hi], fill=colour, width=1)
                draw.line([x - 3, lo, x + 3, lo], fill=colour)
                draw.line([x - 3, hi, x + 3, hi], fill=colour)
        for x, y in points:
            draw.ellipse([x - 2.5, y - 2.5, x + 2.5, y + 2.5], fill=colour)


def draw(columns: Sequence[Column], path: Path) -> Path:
    """Write the figure for ``columns`` to ``path`` (PNG)."""
    if not columns:
        raise ValueError("a figure needs at least one column")
    across = min(len(columns), PER_ROW)
    down = (len(columns) + PER_ROW - 1) // PER_ROW
    image = Image.new("RGB", (across * PANEL[0], down * PANEL[1] + LEGEND), "white")
    canvas = ImageDraw.Draw(image)
    for index, column in enumerate(columns):
        _panel(canvas, ((index % PER_ROW) * PANEL[0], (index // PER_ROW) * PANEL[1]), column)
    font = _font(12)
    x, y = 12, down * PANEL[1] + 10
    for name, colour in COLOURS.items():
        label = SHORT[name]
        canvas.line([x, y + 7, x + 22, y + 7], fill=colour, width=3)
        canvas.text((x + 27, y), label, fill="black", font=font)
        x += 27 + int(canvas.textlength(label, font=font)) + 18
        if x > image.width - 120:
            x, y = 12, y + 20
    image.save(path, format="PNG")
    return path
