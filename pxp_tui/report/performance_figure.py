"""The machine-performance figure (the journal's): the machine's accuracy on the test split at the start of the
interaction, after each session whose context was kept, and at the end, for each report column.

A run's accuracy changes only when it is measured again (its context changes only when a session is kept), so
each run is a step function of the sessions done; a column of repeated runs draws their median step line with
the min-max range shaded (hatched, for print). Two panels: the prediction alone (MATCH), and prediction and
explanation together (MATCH and AGREE).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pxp_tui.report.columns import Column

MEASURES = {"p_correct": "prediction (MATCH)", "p_both": "prediction and explanation (MATCH, AGREE)"}


def steps(rows: Sequence[Mapping[str, Any]], measure: str) -> list[tuple[int, float]]:
    """A run's test measurements as (sessions done, accuracy), in the order measured; a later measurement at the
    same point replaces an earlier one (the end after the last kept session)."""
    found: dict[int, float] = {}
    for row in rows:
        if row.get("split") == "test" and row.get(measure) is not None:
            found[int(row["sessions"] or 0)] = float(row[measure])
    return sorted(found.items())


def at(points: Sequence[tuple[int, float]], x: int) -> float | None:
    """The step function's value at ``x``: the last measurement at or before it."""
    value = None
    for sessions, accuracy in points:
        if sessions > x:
            break
        value = accuracy
    return value


def series(column: Column, measured: Sequence[Mapping[str, Any]], measure: str) -> list[tuple[int, float, float, float]]:
    """The column's (sessions, median, min, max) over its runs, at every point where one of them was measured."""
    runs = [steps([r for r in measured if r["run_id"] == run_id], measure) for run_id in column.run_ids]
    runs = [points for points in runs if points]
    xs = sorted({x for points in runs for x, _ in points})
    out = []
    for x in xs:
        values = [v for v in (at(points, x) for points in runs) if v is not None]
        if values:
            out.append((x, float(statistics.median(values)), min(values), max(values)))
    return out


def draw(columns: Sequence[Column], measured: Sequence[Mapping[str, Any]], path: Path) -> list[Path]:
    """Write the figure to ``path`` (PNG) and beside it as SVG and PDF; [] when no column was measured on a test
    split."""
    from pxp_tui.report import style

    drawn = [(c, {m: series(c, measured, m) for m in MEASURES}) for c in columns]
    drawn = [(c, found) for c, found in drawn if any(found.values())]
    if not drawn:
        return []
    fig, axes = style.panels(len(MEASURES), per_row=2, panel_inches=(5.0, 3.4))
    for ax, (measure, title) in zip(axes, MEASURES.items(), strict=True):
        for index, (column, found) in enumerate(drawn):
            points = found[measure]
            look = style.series_style(index)
            xs = [p[0] for p in points]
            ax.step(xs, [p[1] for p in points], where="post", label=column.label, **look)  # markers where measured
            if any(p[2] != p[3] for p in points):
                ax.fill_between(xs, [p[2] for p in points], [p[3] for p in points], step="post", alpha=0.15,
                                color=look["color"], hatch="//", linewidth=0)  # fmt: skip
        ax.set_title(title)
        ax.set_xlabel("sessions done (0: the start)")
        ax.set_ylabel("test accuracy")
        ax.set_ylim(-0.02, 1.02)
    style.legend_below(fig, axes, columns=4)
    return style.save(fig, path)
