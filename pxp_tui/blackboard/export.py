"""Export the blackboard's tables and views as CSV, JSON, newline-delimited JSON or Markdown.

Rows are read through sqlite-utils and written the way the ``sqlite-utils`` command writes them:
JSON and NDJSON by its ``output_rows`` (BLOBs as ``{"$base64": true, "encoded": ...}``), Markdown by
``tabulate`` in GitHub format (``sqlite-utils rows --fmt github``). CSV carries BLOBs as base64 text.

CSV, JSON and NDJSON hold the text exactly as stored; Markdown, a table for reading, shows it as
:func:`~pxp_tui.common.visible.visible` does (a line break as ``<br>``, a terminal's control characters as escapes).
"""

from __future__ import annotations

import base64
import csv
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.store import Blackboard
from pxp_tui.common.files import output_folder
from pxp_tui.common.visible import visible

FORMATS = {"csv": "csv", "json": "json", "ndjson": "ndjson", "markdown": "md"}


@dataclass(frozen=True)
class Exported:
    name: str
    rows: int
    path: Path | None  # None: written to a stream


def names(board: Blackboard) -> list[str]:
    """Every table (the core's and any other) then every view, as exported by default."""
    tables = [n for n in board.db.table_names() if not n.startswith("sqlite_")]
    return tables + board.db.view_names()


def _rows(board: Blackboard, name: str) -> tuple[list[str], Iterator[tuple]]:
    pks = [] if name in board.db.view_names() else board.db.table(name).pks
    order = " ORDER BY " + ", ".join(f"[{p}]" for p in pks) if pks else ""
    cursor = board.db.execute(f"SELECT * FROM [{name}]{order}")
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


def write(board: Blackboard, name: str, fmt: str, stream: IO[str]) -> int:
    """Write table or view ``name`` to ``stream`` in format ``fmt``; return the number of rows."""
    headers, rows = _rows(board, name)
    if fmt == "csv":
        return _csv(headers, rows, stream)
    if fmt in ("json", "ndjson"):
        return _json(headers, rows, stream, nl=fmt == "ndjson")
    if fmt == "markdown":
        return _markdown(headers, rows, stream)
    raise BlackboardError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def check(board: Blackboard, fmt: str, tables: Sequence[str] | None) -> list[str]:
    """The names to export; an unknown format or name is an error before anything is written."""
    if fmt not in FORMATS:
        raise BlackboardError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")
    known = names(board)
    for name in tables or ():
        if name not in known:
            raise BlackboardError(f"no table or view {name!r} in {board.path} (there are: {', '.join(known)})")
    return list(dict.fromkeys(tables)) if tables else known


def export(board: Blackboard, fmt: str, out: Path, tables: Sequence[str] | None = None) -> list[Exported]:
    """Write one file per table and view (or per name in ``tables``) into directory ``out``: all of them, or none.

    The files are written beside ``out``'s and moved in when every one is whole (``common.files.output_folder``):
    an OSError (a full disk) leaves ``out`` as it was, earlier exports in it included.
    """
    chosen = check(board, fmt, tables)
    if out.exists() and not out.is_dir():
        raise BlackboardError(f"{out} is a file, not a directory")
    done = []
    with output_folder(out) as partial:
        for name in chosen:
            file = f"{name}.{FORMATS[fmt]}"
            with (partial / file).open("w", encoding="utf-8", newline="") as stream:
                done.append(Exported(name, write(board, name, fmt, stream), out / file))
    return done
