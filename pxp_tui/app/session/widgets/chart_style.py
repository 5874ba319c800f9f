"""How the app's charts tell their series apart: a marker each (not only a colour, so that they survive
NO_COLOR and a grey terminal), a legend beside the plot rather than over its lines, counts as steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

#: one marker and one colour per series, in order: distinct in shape first
MARKERS: tuple[str, ...] = ("●", "×", "▲", "■", "◆")
#: a plotext colour: its name, or RGB
Colour = str | tuple[int, int, int]

#: (plotext's names, or RGB where its bright magenta and red read under 4.5:1 on the pane in 256 colours)
COLOURS: tuple[Colour, ...] = ("cyan+", "orange+", "green+", (255, 135, 215), "yellow+")


def marker(index: int) -> str:
    return MARKERS[index % len(MARKERS)]


def colour(index: int) -> Colour:
    return COLOURS[index % len(COLOURS)]


def legend(labels: Sequence[str]) -> Content:
    """``● 1-way H  × 1-way M  ▲ 2-way``: the markers the plot draws, each with its series' name."""
    return Content("  ").join(Content.assemble((marker(i), "bold"), " ", label) for i, label in enumerate(labels))


#: the markers of the pieces where several series run together (one per combination met, in order)
MEETING_MARKERS: tuple[str, ...] = ("◆", "■", "✚", "★")
MEETING_COLOURS: tuple[Colour, ...] = ("white", (255, 135, 215), (255, 255, 135), (215, 175, 255))


@dataclass(frozen=True)
class Piece:
    """A stretch of the chart drawn with one marker: where the series ``owners`` run together (one owner: a
    series on its own)."""

    owners: tuple[int, ...]
    xs: list[float]
    ys: list[float]


def pieces(paths: Sequence[tuple[Sequence[float], Sequence[float]]]) -> list[Piece]:
    """The series' paths (each a list of points) cut where they run together: each segment drawn once, by
    the series that share it. Drawn whole, the last series hid the others wherever they met (a count
    that equals another for some bounds), and the legend named series the chart did not show."""
    owners: dict[tuple[float, float, float, float], list[int]] = {}
    for i, (xs, ys) in enumerate(paths):
        for k in range(len(xs) - 1):
            owners.setdefault((xs[k], ys[k], xs[k + 1], ys[k + 1]), []).append(i)
    out: list[Piece] = []
    for i, (xs, ys) in enumerate(paths):
        if len(xs) == 1:
            out.append(Piece((i,), [xs[0]], [ys[0]]))
        for k in range(len(xs) - 1):
            shared = tuple(owners[(xs[k], ys[k], xs[k + 1], ys[k + 1])])
            if shared[0] != i:  # drawn by the first series that has it
                continue
            last = out[-1] if out else None
            if last is not None and last.owners == shared and last.xs[-1] == xs[k] and last.ys[-1] == ys[k]:
                last.xs.append(xs[k + 1])
                last.ys.append(ys[k + 1])
            else:
                out.append(Piece(shared, [xs[k], xs[k + 1]], [ys[k], ys[k + 1]]))
    return out


def piece_styles(found: Sequence[Piece]) -> dict[tuple[int, ...], tuple[str, Colour]]:
    """(marker, colour) for each set of owners among ``found``: a series its own; each meeting its own."""
    styles: dict[tuple[int, ...], tuple[str, Colour]] = {}
    meetings = 0
    for piece in found:
        if piece.owners in styles:
            continue
        if len(piece.owners) == 1:
            styles[piece.owners] = (marker(piece.owners[0]), colour(piece.owners[0]))
        else:
            index = meetings % len(MEETING_MARKERS)
            styles[piece.owners] = (MEETING_MARKERS[index], MEETING_COLOURS[index])
            meetings += 1
    return styles


def pieces_legend(labels: Sequence[str], styles: dict[tuple[int, ...], tuple[str, Colour]]) -> Content:
    """``● 1-way H  × 1-way M  ▲ 2-way  ◆ 1-way H = 2-way``: each series shown on its own, then each meeting."""
    order = sorted(styles, key=lambda owners: (len(owners), owners))
    return Content("  ").join(
        Content.assemble((styles[owners][0], "bold"), " ", " = ".join(labels[i] for i in owners)) for owners in order
    )


def steps(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    """A count that holds from one x to the next, drawn as a step (level, then up or down), not a slope."""
    if not xs:
        return [], []
    out_x, out_y = [float(xs[0])], [float(ys[0])]
    for x, y in zip(xs[1:], ys[1:], strict=True):
        out_x += [float(x), float(x)]
        out_y += [out_y[-1], float(y)]
    return out_x, out_y
