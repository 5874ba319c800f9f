"""``pxp metrics``: the papers' table of intelligibility counts and proportions."""

from __future__ import annotations

import argparse
import json

from pxp_tui.cli.common import add_db, open_existing, positive


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("--run", type=positive, action="append", metavar="ID", help="only this run (repeatable)")
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per run")


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard.metrics import counts_of, run_rows
    from pxp_tui.report import table

    with open_existing(args.db) as board:
        rows = run_rows(board, args.run)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no runs in {args.db}")
        return 0
    headers = [table.heading(r["run_id"], r["task"], r["human"]) for r in rows]
    print(table.text(headers, [counts_of(r) for r in rows]))
    return 0
