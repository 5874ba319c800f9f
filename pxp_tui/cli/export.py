"""``pxp export``: the runs, sessions, messages and instances (or any table or view) as CSV, JSON, NDJSON,
Markdown or xlsx files, for every run or some."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pxp_tui.cli.common import add_db, open_existing
from pxp_tui.cli.output import data_stream

DEFAULT_OUT = "export"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument(
        "--format",
        required=True,
        choices=["csv", "json", "ndjson", "markdown", "xlsx"],
        help="the file format (xlsx: a spreadsheet)",
    )
    parser.add_argument(
        "--run", type=int, action="append", metavar="ID", help="only this run's rows (repeatable; default: every run)"
    )
    parser.add_argument("--with-images", action="store_true", help="also the instances' pictures (images, base64)")
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"directory for one file per table and view (default: {DEFAULT_OUT}); "
        "`-` prints a single --table to standard output",
    )
    parser.add_argument(
        "--table",
        action="append",
        metavar="NAME",
        help="only this table or view (repeatable; default: runs, sessions, messages and instances; "
        "any other table or view of the file by its name)",
    )


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import export
    from pxp_tui.common.files import describe

    with open_existing(args.db) as board:
        if args.out == "-":
            if args.format in export.FILE_ONLY:
                raise ValueError(f"--format {args.format} is written to files: name a folder with --out")
            (name,) = _single(export.check(board, args.format, args.table, args.run), args.table)
            rows = export.write(board, name, args.format, data_stream(), args.run)
            print(f"{name}: {rows} rows", file=sys.stderr)
            return 0
        try:
            done = export.export(board, args.format, Path(args.out), args.table, args.run, with_images=args.with_images)
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
