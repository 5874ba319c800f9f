"""The one way the report draws a figure: matplotlib, imported here only (never before the app's first paint),
in a style readable in print and without colour.

Every series gets a colour (Okabe-Ito, safe for colour-blind readers), a marker and a line style of its own, so
that a grey-scale print tells them apart; the legend sits outside the axes; counts are drawn as step lines; a
figure is at least 1200 px wide at 150 dpi, and is written as PNG, SVG and PDF side by side.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: dots per inch of the PNG; the width in inches makes it at least MIN_WIDTH pixels
DPI = 150
MIN_WIDTH = 1200
#: the formats written for each figure, beside each other (``curves.png``, ``curves.svg``, ``curves.pdf``)
FORMATS = ("png", "svg", "pdf")
#: Okabe-Ito
COLOURS = ("#0072B2", "#E69F00", "#000000", "#56B4E9", "#D55E00", "#009E73", "#CC79A7", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 2, 2)))


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display, no window), imported on first use."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.grid": True,
            "grid.color": "#dddddd",
            "grid.linewidth": 0.6,
            "svg.fonttype": "none",  # text stays text in the SVG
            "pdf.fonttype": 42,
            "savefig.dpi": DPI,
        }
    )
    return plt


def integer_ticks() -> Any:
    """A tick locator for counts: whole numbers only."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def series_style(index: int) -> dict[str, Any]:
    """The colour, marker and line style of the ``index``-th series (repeating after eight)."""
    return {
        "color": COLOURS[index % len(COLOURS)],
        "marker": MARKERS[index % len(MARKERS)],
        "linestyle": LINESTYLES[index % len(LINESTYLES)],
        "markersize": 5,
        "linewidth": 1.6,
    }


def styles() -> Iterator[dict[str, Any]]:
    index = 0
    while True:
        yield series_style(index)
        index += 1


def panels(count: int, *, per_row: int = 3, panel_inches: tuple[float, float] = (4.2, 3.2)) -> tuple[Any, list[Any]]:
    """A figure of ``count`` panels, ``per_row`` across, at least MIN_WIDTH pixels wide; (figure, axes in order)."""
    plt = pyplot()
    across = max(1, min(count, per_row))
    down = max(1, -(-count // per_row))
    width = max(panel_inches[0] * across, MIN_WIDTH / DPI)
    fig, grid = plt.subplots(down, across, figsize=(width, panel_inches[1] * down + 0.9), squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def legend_below(fig: Any, axes: list[Any], columns: int = 4) -> None:
    """One legend for the figure, outside and below the panels (never over a line)."""
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(columns, max(1, len(labels))), frameon=False)
    rows = -(-len(labels) // columns)
    fig.tight_layout(rect=(0, 0.06 + 0.045 * rows, 1, 1))


def save(fig: Any, path: Path) -> list[Path]:
    """Write ``fig`` as ``path`` (PNG) and beside it as SVG and PDF; the paths written."""
    plt = pyplot()
    written = []
    try:
        for form in FORMATS:
            target = path.with_suffix(f".{form}")
            fig.savefig(target, format=form, dpi=DPI, metadata=_metadata(form))
            written.append(target)
    finally:
        plt.close(fig)
    return written


def _metadata(form: str) -> dict[str, Any] | None:
    """No creation date in the files: the same report writes the same bytes."""
    if form == "png":
        return {"Software": None}
    if form == "svg":
        return {"Date": None}
    if form == "pdf":
        return {"CreationDate": None}
    return None
