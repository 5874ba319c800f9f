"""Export the blackboard's tables for a person: CSV, JSON, newline-delimited JSON, Markdown or Excel (xlsx).

By default the readable tables (:mod:`pxp_tui.blackboard.readable`): ``runs``, ``sessions``, ``messages``
(one flat row per message, with its run, instance, expert, time and the session's flags) and
``instances``; ``images`` only when asked; any other table or view of the file by name. Each can be
kept to some runs.

Rows are read through sqlite-utils and written the way the ``sqlite-utils`` command writes them:
JSON and NDJSON by its ``output_rows`` (BLOBs as ``{"$base64": true, "encoded": ...}``), Markdown by
``tabulate`` in GitHub format (``sqlite-utils rows --fmt github``). CSV carries BLOBs as base64 text.

CSV, JSON, NDJSON and xlsx hold the text exactly as stored; Markdown, a table for reading, shows it as
:func:`~pxp_tui.common.visible.visible` does (a line break as ``<br>``, a terminal's control characters as escapes).
"""

from __future__ import annotations

import base64
import csv
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pxp_tui.blackboard import readable
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.store import Blackboard
from pxp_tui.common.files import output_folder
from pxp_tui.common.visible import visible

FORMATS = {"csv": "csv", "json": "json", "ndjson": "ndjson", "markdown": "md", "xlsx": "xlsx"}
#: characters XML 1.0 (so xlsx) cannot hold
_XML_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: text that a spreadsheet would read as Excel's escape of a character (``_x0041_`` is "A")
_LOOKS_ESCAPED = re.compile(r"_(?=x[0-9A-Fa-f]{4}_)")
#: formats written to a file only (a binary one)
FILE_ONLY = ("xlsx",)


@dataclass(frozen=True)
class Exported:
    name: str
    rows: int
    path: Path | None  # None: written to a stream


def names(board: Blackboard) -> list[str]:
    """Every name that can be exported: the readable tables, then the file's other tables and its views."""
    tables = [n for n in board.db.table_names() if not n.startswith("sqlite_")]
    return list(dict.fromkeys([*readable.NAMES, *tables, *board.db.view_names()]))


def every(board: Blackboard, *, with_images: bool = False) -> list[str]:
    """What ``--all`` exports: every name but ``images`` unless asked."""
    return [n for n in names(board) if with_images or n != "images"]


def _rows(board: Blackboard, name: str, runs: Sequence[int] | None) -> tuple[list[str], Iterator[tuple]]:
    query = readable.query(board, name, runs)
    cursor = board.db.execute(query.sql, query.params)
    return [d[0] for d in cursor.description], iter(cursor)


def _csv(headers: list[str], rows: Iterator[tuple], stream: IO[str]) -> int:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(headers)
    count = 0
    for row in rows:
        writer.writerow([base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else v for v in row])
        count += 1
    return count


def _json(headers: list[str], rows: Iterator[tuple], stream: IO[str], *, nl: bool) -> int:
    from sqlite_utils.cli import output_rows

    count = 0

    def counted() -> Iterator[tuple]:
        nonlocal count
        for row in rows:
            count += 1
            yield row

    for line in output_rows(counted(), headers, nl, False, False):
        if nl and not count:
            break  # output_rows ends an empty list with "[]": an empty NDJSON file has no lines
        stream.write(line + "\n")
    return count


def _markdown_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str):
        return visible(value).replace("|", "\\|").replace("\n", "<br>")
    return value


def _markdown(headers: list[str], rows: Iterator[tuple], stream: IO[str]) -> int:
    from tabulate import tabulate

    body = [[_markdown_value(v) for v in row] for row in rows]
    stream.write(tabulate(body, headers=headers, tablefmt="github", disable_numparse=True) + "\n")
    return len(body)


def _ooxml(text: str) -> str:
    """``text`` as an xlsx cell holds it exactly: a character XML cannot hold, and an underscore that would
    start an escape, written as Excel's ``_xHHHH_`` (which spreadsheets, and openpyxl, read back)."""
    if "_x" in text:
        text = _LOOKS_ESCAPED.sub("_x005F_", text)
    return _XML_FORBIDDEN.sub(lambda m: f"_x{ord(m.group()):04X}_", text)


def _xlsx(headers: list[str], rows: Iterator[tuple], path: Path, title: str) -> int:
    """One sheet, its header frozen and a filter on every column; a text cell is always text (never run as a formula,
    whatever it starts with), as stored.

    A character that an xlsx file cannot hold (a control character, forbidden by XML) is written as
    Excel's ``_xHHHH_`` escape, which a spreadsheet reads back as the character.
    """
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook(write_only=True)
    sheet = book.create_sheet(title[:31])
    bold = Font(bold=True)

    def cell(value: Any, *, header: bool = False) -> Any:
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii")
        if not isinstance(value, str):
            return WriteOnlyCell(sheet, value)
        made = WriteOnlyCell(sheet, _ooxml(value))
        made.data_type = "s"  # text, even "=1+1"
        if header:
            made.font = bold
        return made

    sheet.freeze_panes = "A2"  # the header stays in view as the rows scroll
    sheet.append([cell(h, header=True) for h in headers])
    count = 0
    for row in rows:
        sheet.append([cell(v) for v in row])
        count += 1
    if headers:  # a filter on every column, over the header and the rows
        sheet.auto_filter.ref = f"A1:{get_column_letter(len(headers))}{count + 1}"
    book.save(path)
    return count


def write(board: Blackboard, name: str, fmt: str, stream: IO[str], runs: Sequence[int] | None = None) -> int:
    """Write ``name`` (kept to ``runs``) to ``stream`` in format ``fmt``; return the number of rows."""
    headers, rows = _rows(board, name, runs)
    if fmt == "csv":
        return _csv(headers, rows, stream)
    if fmt in ("json", "ndjson"):
        return _json(headers, rows, stream, nl=fmt == "ndjson")
    if fmt == "markdown":
        return _markdown(headers, rows, stream)
    raise BlackboardError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def check(
    board: Blackboard, fmt: str, tables: Sequence[str] | None, runs: Sequence[int] | None = None, *, with_images: bool = False
) -> list[str]:
    """The names to export; an unknown format, name or run is an error before anything is written."""
    if fmt not in FORMATS:
        raise BlackboardError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")
    known = names(board)
    for name in tables or ():
        if name not in known:
            raise BlackboardError(f"no table or view {name!r} in {board.path} (there are: {', '.join(known)})")
    if runs is not None:
        have = set(board.run_ids())
        missing = [r for r in runs if r not in have]
        if missing:
            listed = ", ".join(map(str, sorted(have))) or "none"
            raise BlackboardError(f"no run {missing[0]} in {board.path} (runs: {listed})")
    if tables:
        return list(dict.fromkeys(tables))
    return [*readable.DEFAULT, *(["images"] if with_images else [])]


def export(
    board: Blackboard,
    fmt: str,
    out: Path,
    tables: Sequence[str] | None = None,
    runs: Sequence[int] | None = None,
    *,
    with_images: bool = False,
) -> list[Exported]:
    """Write one file per table (the readable ones, or each name in ``tables``), kept to ``runs``, into
    directory ``out``: all of them, or none.

    The files are written beside ``out``'s and moved in when every one is whole (``common.files.output_folder``):
    an OSError (a full disk) leaves ``out`` as it was, earlier exports in it included.
    """
    chosen = check(board, fmt, tables, runs, with_images=with_images)
    if out.exists() and not out.is_dir():
        raise BlackboardError(f"{out} is a file, not a directory")
    done = []
    with output_folder(out) as partial:
        for name in chosen:
            file = f"{name}.{FORMATS[fmt]}"
            if fmt in FILE_ONLY:
                headers, rows = _rows(board, name, runs)
                done.append(Exported(name, _xlsx(headers, rows, partial / file, name), out / file))
                continue
            with (partial / file).open("w", encoding="utf-8", newline="") as stream:
                done.append(Exported(name, write(board, name, fmt, stream, runs), out / file))
    return done
