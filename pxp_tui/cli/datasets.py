"""``pxp datasets``: the datasets in a blackboard, with their splits."""

from __future__ import annotations

import argparse
import json

from pxp_tui.cli.common import add_db, open_existing
from pxp_tui.report.grid import grid

COLUMNS = ("name", "task", "instances", "train", "val", "test", "images", "source")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per dataset")


def main(args: argparse.Namespace) -> int:
    with open_existing(args.db) as board:
        rows = [{c: row[c] if row[c] is not None else 0 for c in COLUMNS} for row in board.datasets()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no datasets in {args.db} (add one with `pxp import`)")
        return 0
    print(grid([list(COLUMNS), *[[str(row[c]) for c in COLUMNS] for row in rows]], right=range(2, 7)))
    return 0
