"""``pxp evaluations``: machine performance measured during runs (``--evaluate``, ``--learn-gate``)."""

from __future__ import annotations

import argparse
import json

from pxp_tui.cli.common import add_db, open_existing, positive
from pxp_tui.report.grid import grid

HEADERS = ("run", "split", "when", "context", "n", "accuracy", "agreement", "both", "kept")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("--run", type=positive, action="append", metavar="ID", help="only this run (repeatable)")
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per measurement")


def _when(row: dict) -> str:
    return row["phase"] if row["phase"] != "session" else f"after {row['sessions']}"


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import evaluations as stored

    with open_existing(args.db) as board:
        board.check_runs(args.run or ())
        rows = [row for run_id in (args.run or board.run_ids()) for row in stored.of_run(board, run_id)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no measurements in {args.db} (run with --evaluate or --learn-gate)")
        return 0
    cells = [list(HEADERS)] + [
        [
            str(r["run_id"]), r["split"], _when(r), str(r["context_sessions"]), str(r["instances"]),
            f"{r['p_correct']:.2f}", f"{r['p_agreed']:.2f}", f"{r['p_both']:.2f}",
            "" if r["kept"] is None else ("yes" if r["kept"] else "no"),
        ]
        for r in rows
    ]  # fmt: skip
    print(grid(cells, right=(0, 3, 4, 5, 6, 7)))
    return 0
