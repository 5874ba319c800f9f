"""The papers' intelligibility table as plain text, one column per run (Markdown: ``render.table_markdown``)."""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.protocol import RunCounts
from pxp_tui.report.grid import grid

#: (first cell, second cell, class) in the papers' order
ROWS: tuple[tuple[str, str, str | None], ...] = (
    ("Total sessions", "", None),
    ("1-way intelligible sessions for:", "Human", "one_way_human"),
    ("", "Machine", "one_way_machine"),
    ("2-way intelligible sessions:", "", "two_way"),
    ("Strong intelligible sessions for:", "Human", "strong_human"),
    ("", "Machine", "strong_machine"),
    ("Ultra-strong intelligible sessions for:", "Human", "ultra_strong_human"),
    ("", "Machine", "ultra_strong_machine"),
)


def cell(counts: RunCounts, name: str | None) -> str:
    if name is None:
        return str(counts.sessions)
    return f"{getattr(counts, name)} ({counts.proportion(name):.2f})"


def cells(columns: Sequence[RunCounts]) -> list[list[str]]:
    return [[a, b, *(cell(c, name) for c in columns)] for a, b, name in ROWS]


def heading(run_id: int, task: str, human: str) -> str:
    """A run's column heading: its id, its task and who answered (the expert's name, or the human's kind)."""
    return f"run {run_id} {task.upper()} {human}"


def text(headers: Sequence[str], columns: Sequence[RunCounts]) -> str:
    """A plain-text table with aligned columns, the counts right-aligned."""
    return grid([["Count", "", *headers], *cells(columns)], right=range(2, 2 + len(headers)))
