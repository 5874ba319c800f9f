"""What differs between two screens saved as SVG by Textual (a snapshot and the screen a test drew): the rows whose
text differs, and the rows whose text is the same but whose colours differ, as a failing snapshot test's message.

Textual's SVG draws each row's backgrounds as ``<rect>`` elements and its text as ``<text>`` runs clipped to the row
(``clip-path="url(#terminal-line-N)"``), the colour of a run in a ``.terminal-rN`` class of its ``<style>``.
"""

from __future__ import annotations

import html
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: rows shown at most in a message
SHOWN = 12

_STYLE = re.compile(r"\.(terminal(?:-\d+)?-r\d+)\s*\{([^}]*)\}")
_TEXT = re.compile(
    r'<text class="([^"]+)" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" clip-path="url\(#[\w-]*line-(\d+)\)">([^<]*)</text>'
)
_RECT = re.compile(
    r'<rect fill="(#[0-9a-fA-F]+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" shape-rendering="crispEdges"/>'
)
#: the cell's size in Textual's SVG (rich's export_svg: a char width of 0.61 em at 20 px, a line of 1.22 em)
CELL_WIDTH, ROW_HEIGHT, TOP = 12.2, 24.4, 1.5


@dataclass
class Screen:
    """The screen an SVG shows: per row, its text and each cell's (foreground style, background colour)."""

    text: dict[int, list[str]] = field(default_factory=dict)
    looks: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def row(self, number: int) -> str:
        return "".join(self.text.get(number, [])).replace("\xa0", " ").rstrip()

    def rows(self) -> int:
        return max([*self.text, *self.looks, -1]) + 1


def screen(svg: str) -> Screen:
    """Read the rows of a Textual SVG screenshot."""
    styles = {name.rsplit("-", 1)[-1]: body.strip() for name, body in _STYLE.findall(svg)}
    shown = Screen()

    def cells(row: int, width: int) -> tuple[list[str], list[tuple[str, str]]]:
        text = shown.text.setdefault(row, [])
        looks = shown.looks.setdefault(row, [])
        while len(text) < width:
            text.append(" ")
            looks.append(("", ""))
        return text, looks

    for fill, x, y, width in _RECT.findall(svg):
        first, count = round(float(x) / CELL_WIDTH), round(float(width) / CELL_WIDTH)
        _, looks = cells(round((float(y) - TOP) / ROW_HEIGHT), first + count)
        for column in range(first, first + count):
            looks[column] = (looks[column][0], fill)
    for style, x, length, row, content in _TEXT.findall(svg):
        chars = html.unescape(content)
        first, count = round(float(x) / CELL_WIDTH), max(round(float(length) / CELL_WIDTH), len(chars))
        text, looks = cells(int(row), first + count)
        for offset, char in enumerate(chars):
            text[first + offset] = char
        for column in range(first, first + count):
            looks[column] = (styles.get(style.rsplit("-", 1)[-1], style), looks[column][1])
    return shown


def differences(expected_svg: str, actual_svg: str) -> str:
    """The rows that differ between two screens, as text: each row's text in both, or, where the text is the same,
    the columns whose colours differ."""
    expected, actual = screen(expected_svg), screen(actual_svg)
    lines: list[str] = []
    differing = 0
    for number in range(max(expected.rows(), actual.rows())):
        if expected.row(number) != actual.row(number):
            differing += 1
            if differing <= SHOWN:
                lines += [
                    f"row {number:2} expected: {expected.row(number)!r}",
                    f"row {number:2} actual:   {actual.row(number)!r}",
                ]
            continue
        was, now = expected.looks.get(number, []), actual.looks.get(number, [])
        columns = [c for c in range(max(len(was), len(now))) if _at(was, c) != _at(now, c)]
        if columns:
            differing += 1
            if differing <= SHOWN:
                first = columns[0]
                lines.append(
                    f"row {number:2} same text {expected.row(number)!r}, colours differ in {len(columns)} columns from {first}:"
                    f" expected {_at(was, first)}, actual {_at(now, first)}"
                )
    if differing > SHOWN:
        lines.append(f"... {differing - SHOWN} more rows differ")
    return "\n".join(lines) if lines else "no row differs in text or colour (the SVGs differ elsewhere)"


def _at(looks: list[tuple[str, str]], column: int) -> tuple[str, str]:
    return looks[column] if column < len(looks) else ("", "")


def explained(compare: Callable[..., bool], node: Any, folder: Path) -> Callable[..., bool]:
    """pytest-textual-snapshot's ``compare``, failing when the screen differs from its snapshot with what differs
    (:func:`differences`) and where both screens are saved (``folder``: expected.svg, actual.svg)."""

    def checked(*args: Any, **kwargs: Any) -> bool:
        __tracebackhide__ = True
        if compare(*args, **kwargs):
            return True
        from pytest_textual_snapshot import node_to_report_path, normalize_svg

        # what the plugin keeps of each comparison for its report: (passed, the snapshot's SVG, the screen's SVG, ...)
        _, expected, actual, *_ = pickle.loads(node_to_report_path(node).read_bytes())
        actual = normalize_svg(actual)
        (folder / "actual.svg").write_text(actual, encoding="utf-8")
        if expected is None or not str(expected).startswith("<svg"):
            raise AssertionError(f"no snapshot to compare with; the screen: {folder / 'actual.svg'}")
        (folder / "expected.svg").write_text(str(expected), encoding="utf-8")
        raise AssertionError(
            f"the screen differs from its snapshot:\n{differences(str(expected), actual)}\n"
            f"both screens: {folder / 'expected.svg'} and {folder / 'actual.svg'} (rsvg-convert makes PNGs of them)"
        )

    return checked
