"""``pxp export``: tables and intelligibility views as CSV, JSON, NDJSON or Markdown files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pxp_tui.cli.common import add_db, open_existing
from pxp_tui.cli.output import data_stream

DEFAULT_OUT = "export"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("--format", required=True, choices=["csv", "json", "ndjson", "markdown"], help="the file format")
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"directory for one file per table and view (default: {DEFAULT_OUT}); "
        "`-` prints a single --table to standard output",
    )
    parser.add_argument(
        "--table", action="append", metavar="NAME", help="only this table or view (repeatable; default: every table and view)"
    )


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import export
    from pxp_tui.common.files import describe

    with open_existing(args.db) as board:
        if args.out == "-":
            (name,) = _single(export.check(board, args.format, args.table), args.table)
            rows = export.write(board, name, args.format, data_stream())
            print(f"{name}: {rows} rows", file=sys.stderr)
            return 0
        try:
            done = export.export(board, args.format, Path(args.out), args.table)
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            raise ValueError(f"cannot export to {args.out}: {describe(exc)}; nothing was written there") from None
    width = max(len(d.name) for d in done)
    for item in done:
        print(f"{item.name:<{width}}  {item.rows:>9,} rows  -> {item.path}")
    return 0


def _single(names: list[str], asked: list[str] | None) -> list[str]:
    if not asked or len(names) != 1:
        raise ValueError("--out - prints one table: name it with a single --table")
    return names
