"""How the app's charts tell their series apart: a marker each (not only a colour, so that they survive
NO_COLOR and a grey terminal), a legend beside the plot rather than over its lines, counts as steps."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

#: one marker and one colour per series, in order: distinct in shape first
MARKERS: tuple[str, ...] = ("●", "×", "▲", "■", "◆")
COLOURS: tuple[str, ...] = ("cyan+", "orange+", "green+", "magenta+", "yellow+")


def marker(index: int) -> str:
    return MARKERS[index % len(MARKERS)]


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def legend(labels: Sequence[str]) -> Content:
    """``● 1-way H  × 1-way M  ▲ 2-way``: the markers the plot draws, each with its series' name."""
    return Content("  ").join(Content.assemble((marker(i), "bold"), " ", label) for i, label in enumerate(labels))


def steps(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    """A count that holds from one x to the next, drawn as a step (level, then up or down), not a slope."""
    if not xs:
        return [], []
    out_x, out_y = [float(xs[0])], [float(ys[0])]
    for x, y in zip(xs[1:], ys[1:], strict=True):
        out_x += [float(x), float(x)]
        out_y += [out_y[-1], float(y)]
    return out_x, out_y
