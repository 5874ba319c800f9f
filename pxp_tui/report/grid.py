"""Plain-text tables for listings and reports: a header row, a rule, aligned columns."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pxp_tui.common.visible import visible


def grid(rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> str:
    """``rows`` (the first is the header) with columns padded; columns in ``right`` right-aligned.

    A cell is text as stored (a dataset's name, a split): shown on one line, its control characters escaped."""
    rows = [[visible(cell, one_line=True) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths, strict=False))]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "-" * (sum(widths) + 2 * (len(widths) - 1)))
    return "\n".join(lines)
