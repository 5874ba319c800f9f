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


def same_groups(series: Sequence[Sequence[float]]) -> list[list[int]]:
    """The series' indices grouped where their values are the same all along, in order of first appearance:
    drawn, such series lie on one line and only the last drawn would show, so one marker stands for them all."""
    groups: dict[tuple[float, ...], list[int]] = {}
    for i, ys in enumerate(series):
        groups.setdefault(tuple(ys), []).append(i)
    return list(groups.values())


def grouped_legend(labels: Sequence[str], groups: Sequence[Sequence[int]]) -> Content:
    """:func:`legend` for series drawn by group (:func:`same_groups`): ``● 1-way H = 1-way M  ▲ 2-way``, each
    group with the marker of its first series."""
    return Content("  ").join(
        Content.assemble((marker(group[0]), "bold"), " ", " = ".join(labels[i] for i in group)) for group in groups
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
