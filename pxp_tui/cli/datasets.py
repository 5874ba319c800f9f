"""``pxp datasets``: the datasets in a blackboard, with their splits."""

from __future__ import annotations

import argparse
import json

from pxp_tui.cli.common import add_db, open_existing

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
    cells = [list(COLUMNS), *[[str(row[c]) for c in COLUMNS] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(COLUMNS))]
    for index, row in enumerate(cells):
        print("  ".join(v.ljust(w) if i in (0, 1, 7) else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))).rstrip())
        if index == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    return 0
