"""The "intelligibility versus message bound" figure (the papers' Fig. 5), drawn with the report's style.

One panel per report column; in each, the number of sessions in each class when only messages ``j <= j*`` are
kept, against ``j*``, as step lines (a count changes only at a message); repeated runs draw the median with
min-max error bars, as in the papers' figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pxp_tui.report.columns import Column
from pxp_tui.report.render import SHORT


def draw(columns: Sequence[Column], path: Path) -> list[Path]:
    """Write the figure for ``columns`` to ``path`` (PNG) and beside it as SVG and PDF; the paths written."""
    from pxp_tui.report import style

    if not columns:
        raise ValueError("a figure needs at least one column")
    fig, axes = style.panels(len(columns))
    for ax, column in zip(axes, columns, strict=True):
        curve = column.curve
        js = list(range(1, len(curve) + 1))
        for index, (name, label) in enumerate(SHORT.items()):
            look = style.series_style(index)
            shift = (index - 3) * 0.05  # error bars of different classes side by side
            medians = [p.classes[name].median for p in curve]
            ax.step(js, medians, where="post", label=label, **look)
            low = [m - p.classes[name].low for m, p in zip(medians, curve, strict=True)]
            high = [p.classes[name].high - m for m, p in zip(medians, curve, strict=True)]
            if any(low) or any(high):
                ax.errorbar([j + shift for j in js], medians, yerr=[low, high], fmt="none", ecolor=look["color"],
                            elinewidth=1, capsize=2)  # fmt: skip
        ax.set_title(column.label)
        ax.set_xlabel("message bound j*")
        ax.set_ylabel("sessions")
        ax.set_xticks(js)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_locator(style.integer_ticks())  # counts of sessions
    style.legend_below(fig, axes, columns=4)
    return style.save(fig, path)
