"""The EVINCE paper's figures from stored rounds, drawn with Pillow, readable without colour.

- :func:`draw_measures`: entropy of each agent, WD %, normalised MI (the paper's Figure 4), and the
  divergences by round, KL and cross entropy both ways and JSD (its Figures 5 and 7), medians across
  sessions by round;
- :func:`draw_case`: one session's top-k distributions round by round, each agent's bar stacked by label
  with the label and its percent written in each segment (its Figure 6a).

Every line has its own marker and dash pattern as well as its colour (Okabe-Ito), and legends sit outside
the plots, so the figures read in greyscale and in print.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

Point = tuple[float, float]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@dataclass(frozen=True)
class Style:
    """How a series is drawn: colour, marker (circle, square, triangle, diamond, cross, plus) and dashes."""

    colour: tuple[int, int, int]
    marker: str
    dash: tuple[int, ...]  # on, off, ... in pixels; () is solid


STYLES = (
    Style((0, 114, 178), "circle", ()),
    Style((213, 94, 0), "square", (9, 5)),
    Style((0, 158, 115), "triangle", (2, 4)),
    Style((0, 0, 0), "diamond", (12, 4, 2, 4)),
    Style((204, 121, 167), "cross", (6, 3)),
    Style((230, 159, 0), "plus", (2, 2, 8, 2)),
)
#: hatchings of the bars of Figure 6 (lines drawn across a segment), with their colours' lightness
HATCHES = ("", "/", "\\", "-", "|", "x", ".", "+")
PANEL = (430, 360)
MARGIN = (58, 36, 16, 106)  # left, top, right, bottom of the plot inside a panel (the panel's legend below)
GREY, LIGHT = (120, 120, 120), (228, 228, 228)


def _font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def _dashed(canvas: ImageDraw.ImageDraw, points: Sequence[Point], style: Style, width: int = 2) -> None:
    """A polyline with the style's dash pattern (the pattern runs on across vertices)."""
    if not style.dash:
        if len(points) > 1:
            canvas.line(list(points), fill=style.colour, width=width)
        return
    pattern, index, left, on = style.dash, 0, float(style.dash[0]), True
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while done < length:
            step = min(left, length - done)
            if on:
                a, b = done / length, (done + step) / length
                canvas.line(
                    [(x0 + a * (x1 - x0), y0 + a * (y1 - y0)), (x0 + b * (x1 - x0), y0 + b * (y1 - y0))],
                    fill=style.colour,
                    width=width,
                )
            done += step
            left -= step
            if left <= 1e-9:
                index = (index + 1) % len(pattern)
                left, on = float(pattern[index]), not on


def marker(canvas: ImageDraw.ImageDraw, x: float, y: float, style: Style, r: float = 4.5) -> None:
    """The style's marker at (x, y): filled shapes and strokes, so they differ in outline alone."""
    c = style.colour
    if style.marker == "circle":
        canvas.ellipse([x - r, y - r, x + r, y + r], outline=c, fill="white", width=2)
    elif style.marker == "square":
        canvas.rectangle([x - r, y - r, x + r, y + r], fill=c)
    elif style.marker == "triangle":
        canvas.polygon([(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)], fill=c)
    elif style.marker == "diamond":
        canvas.polygon([(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)], outline=c, fill="white", width=2)
    elif style.marker == "cross":
        canvas.line([x - r, y - r, x + r, y + r], fill=c, width=2)
        canvas.line([x - r, y + r, x + r, y - r], fill=c, width=2)
    else:
        canvas.line([x - r, y, x + r, y], fill=c, width=2)
        canvas.line([x, y - r, x, y + r], fill=c, width=2)


def _nice_top(value: float) -> float:
    """A round upper bound of the y axis at or above ``value``."""
    if value <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(value))
    return float(next(m * step for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * step >= value * 1.02))


def _panel(
    canvas: ImageDraw.ImageDraw,
    origin: tuple[int, int],
    title: str,
    ylabel: str,
    rounds: Sequence[int],
    series: Sequence[tuple[str, Sequence[float | None], Style]],
    top: float | None = None,
) -> None:
    """One line chart: x the rounds, one line per series (None: no value that round)."""
    x0, y0 = origin
    left, upper, right, bottom = MARGIN
    width, height = PANEL[0] - left - right, PANEL[1] - upper - bottom
    px, py = x0 + left, y0 + upper
    values = [v for _, vs, _ in series for v in vs if v is not None and math.isfinite(v)]
    ymax = top if top is not None else _nice_top(max(values, default=1.0))
    n = len(rounds)
    font, small = _font(14), _font(11)
    canvas.text((x0 + PANEL[0] // 2, y0 + 8), title, fill="black", font=font, anchor="mt")

    def xy(i: float, v: float) -> Point:
        return px + (i / max(n - 1, 1)) * width if n > 1 else px + width / 2, py + height - min(v, ymax) / ymax * height

    canvas.rectangle([px, py, px + width, py + height], outline=GREY)
    for tick in range(5):
        _, y = xy(0, ymax * tick / 4)
        canvas.line([px, y, px + width, y], fill=LIGHT)
        canvas.text((px - 6, y), f"{ymax * tick / 4:.3g}", fill="black", font=small, anchor="rm")
    for i, r in enumerate(rounds):
        x, _ = xy(i, 0)
        canvas.line([x, py + height, x, py + height + 4], fill="black")
        canvas.text((x, py + height + 6), str(r), fill="black", font=small, anchor="mt")
    canvas.text((px + width // 2, py + height + 24), "round", fill="black", font=small, anchor="mt")
    canvas.text((px - 8, py - 6), ylabel, fill="black", font=small, anchor="rb")
    for position, (name, _, style) in enumerate(series):  # the panel's legend, under its axis
        _legend_entry(canvas, (x0 + 14 + (position % 2) * 205, py + height + 44 + (position // 2) * 20), name, style)
    for _, vs, style in series:
        points = [xy(i, v) for i, v in enumerate(vs) if v is not None and math.isfinite(v)]
        _dashed(canvas, points, style)
        for x, y in points:
            marker(canvas, x, y, style)
        for i, v in enumerate(vs):  # an infinite value (a raw divergence): an arrow at the top
            if v is not None and not math.isfinite(v):
                x, y = xy(i, ymax)
                canvas.polygon([(x, y - 2), (x - 5, y + 7), (x + 5, y + 7)], outline=style.colour)


def _legend_entry(canvas: ImageDraw.ImageDraw, origin: tuple[float, float], name: str, style: Style) -> None:
    """A legend entry outside the plot: a sample of the line with its dashes and marker, and the name."""
    x, y = origin
    _dashed(canvas, [(x, y + 7), (x + 34, y + 7)], style)
    marker(canvas, x + 17, y + 7, style)
    canvas.text((x + 42, y), name, fill="black", font=_font(12))


#: the panels of :func:`draw_measures`: title, y label, upper bound (None: from the data), and its series
MEASURE_PANELS: tuple[tuple[str, str, float | None, tuple[tuple[str, str], ...]], ...] = (
    ("Entropy of each agent", "bits", None, (("entropy_machine", "H machine"), ("entropy_human", "H other"))),
    ("WD % (of the largest)", "%", 100.0, (("wasserstein_percent", "WD %"),)),
    ("Normalised MI", "NMI", 1.0, (("normalised_mi", "NMI"),)),
    (
        "Divergences (smoothed)",
        "bits",
        None,
        (
            ("kl_machine_human", "KL(machine||other)"),
            ("kl_human_machine", "KL(other||machine)"),
            ("cross_entropy_machine_human", "CE(machine, other)"),
            ("cross_entropy_human_machine", "CE(other, machine)"),
            ("js_divergence", "JSD"),
        ),
    ),
)


def draw_measures(rounds: Sequence[int], medians: Mapping[str, Sequence[float | None]], path: Path, title: str) -> Path:
    """Figure 4's three panels and Figures 5/7's divergences: ``medians[measure]`` holds each round's value."""
    if not rounds:
        raise ValueError("a figure needs at least one round")
    across = 2
    image = Image.new("RGB", (across * PANEL[0], 2 * PANEL[1] + 34), "white")
    canvas = ImageDraw.Draw(image)
    canvas.text((8, 8), title, fill="black", font=_font(15))
    for index, (name, ylabel, top, measures) in enumerate(MEASURE_PANELS):
        origin = ((index % across) * PANEL[0], 30 + (index // across) * PANEL[1])
        series = [
            (label, medians.get(measure, [None] * len(rounds)), STYLES[position % len(STYLES)])
            for position, (measure, label) in enumerate(measures)
        ]
        _panel(canvas, origin, name, ylabel, rounds, series, top)
    image.save(path, format="PNG")
    return path


def _hatch(canvas: ImageDraw.ImageDraw, box: tuple[float, float, float, float], kind: str) -> None:
    x0, y0, x1, y1 = box
    ink = (60, 60, 60)
    gap = 6
    if kind in ("/", "x"):
        for d in range(int(-(y1 - y0)), int(x1 - x0), gap):
            canvas.line(_clip(x0 + d, y1, x0 + d + (y1 - y0), y0, box), fill=ink)
    if kind in ("\\", "x"):
        for d in range(0, int(x1 - x0 + y1 - y0), gap):
            canvas.line(_clip(x0 + d - (y1 - y0), y0, x0 + d, y1, box), fill=ink)
    if kind in ("-", "+"):
        for y in range(int(y0) + 3, int(y1), gap):
            canvas.line([x0, y, x1, y], fill=ink)
    if kind in ("|", "+"):
        for x in range(int(x0) + 3, int(x1), gap):
            canvas.line([x, y0, x, y1], fill=ink)
    if kind == ".":
        for y in range(int(y0) + 3, int(y1), gap):
            for x in range(int(x0) + 3, int(x1), gap):
                canvas.point((x, y), fill=ink)


def _clip(xa: float, ya: float, xb: float, yb: float, box: tuple[float, float, float, float]) -> list[float]:
    """The segment (xa, ya)-(xb, yb) clipped to ``box`` (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    dx, dy = xb - xa, yb - ya
    low, high = 0.0, 1.0
    for p, q in ((-dx, xa - x0), (dx, x1 - xa), (-dy, ya - y0), (dy, y1 - ya)):
        if p == 0:
            if q < 0:
                return [xa, ya, xa, ya]
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
    if low > high:
        return [xa, ya, xa, ya]
    return [xa + low * dx, ya + low * dy, xa + high * dx, ya + high * dy]


def _short(label: str, width: int) -> str:
    return label if len(label) <= width else label[: max(1, width - 1)] + "."


def draw_case(
    rounds: Sequence[tuple[int, Mapping[str, float] | None, Mapping[str, float] | None]],
    path: Path,
    title: str,
    truth: str | None = None,
) -> Path:
    """One session's distributions round by round (``(round, machine's, other's)``): per round two bars, the
    machine's (M) and the other's (O), stacked by label, most probable at the bottom, each segment hatched by
    its label and written with the label and its percent; the case's label, if known, is marked in the legend."""
    if not rounds:
        raise ValueError("a figure needs at least one round")
    labels: list[str] = []
    for _, m, o in rounds:
        for d in (m, o):
            for name, p in sorted((d or {}).items(), key=lambda item: -item[1]):
                if p > 0 and name not in labels:
                    labels.append(name)
    hatch = {name: HATCHES[i % len(HATCHES)] for i, name in enumerate(labels)}
    shade = {name: 255 - 18 * (i % 6) for i, name in enumerate(labels)}
    bar, gap, height = 70, 34, 360
    left, top = 50, 44
    width = left + len(rounds) * (2 * bar + gap) + 230
    image = Image.new("RGB", (width, top + height + 60), "white")
    canvas = ImageDraw.Draw(image)
    font, small = _font(14), _font(10)
    canvas.text((8, 8), title, fill="black", font=font)
    canvas.line([left, top, left, top + height], fill=GREY)
    for tick in range(0, 101, 25):
        y = top + height - tick / 100 * height
        canvas.text((left - 6, y), f"{tick}%", fill="black", font=small, anchor="rm")
    for index, (r, machine, other) in enumerate(rounds):
        x = left + 12 + index * (2 * bar + gap)
        seats: tuple[tuple[int, str, Mapping[str, float] | None], ...] = ((0, "M", machine), (bar + 2, "O", other))
        for offset, who, found in seats:
            y = float(top + height)
            for label, p in sorted((found or {}).items(), key=lambda item: -item[1]):
                if p <= 0:
                    continue
                h = p * height
                box = (x + offset, y - h, x + offset + bar - 4, y)
                grey = shade[label]
                canvas.rectangle(box, fill=(grey, grey, grey), outline="black")
                _hatch(canvas, box, hatch[label])
                if h >= 22:
                    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                    text = f"{_short(label, 11)}\n{p:.0%}"
                    canvas.multiline_text(
                        (cx, cy), text, fill="black", font=small, anchor="mm", align="center", stroke_width=2, stroke_fill="white"
                    )
                y -= h
            canvas.text((x + offset + (bar - 4) / 2, top + height + 6), who, fill="black", font=small, anchor="mt")
        canvas.text((x + bar, top + height + 22), f"round {r}", fill="black", font=small, anchor="mt")
    lx = left + len(rounds) * (2 * bar + gap) + 8
    canvas.text((lx, top), "labels (M: machine, O: other)", fill="black", font=small)
    for i, label in enumerate(labels[:14]):
        y = top + 20 + i * 22
        box = (lx, y, lx + 26, y + 16)
        grey = shade[label]
        canvas.rectangle(box, fill=(grey, grey, grey), outline="black")
        _hatch(canvas, box, hatch[label])
        name = _short(label, 26) + ("  (the label)" if truth is not None and label.casefold() == truth.casefold() else "")
        canvas.text((lx + 32, y + 2), name, fill="black", font=small)
    image.save(path, format="PNG")
    return path


def case_rounds(rows: Sequence[Mapping[str, Any]]) -> list[tuple[int, dict[str, float] | None, dict[str, float] | None]]:
    """A session's messages (``j``, ``distribution`` JSON) as rounds of (machine's, other's) distributions."""
    import json

    by_j = {r["j"]: json.loads(r["distribution"]) for r in rows if r["distribution"]}
    found = []
    for j in sorted(by_j):
        if j % 2 == 1:
            found.append(((j + 1) // 2, by_j[j], by_j.get(j + 1)))
    return found
