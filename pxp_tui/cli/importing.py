"""``pxp import``: read a dataset file, check all of it, then store it in the blackboard in one transaction."""

from __future__ import annotations

import argparse
import codecs
from pathlib import Path

from pxp_tui.cli.common import add_db
from pxp_tui.tasks import TASKS
from pxp_tui.tasks.csvdata import SPLITS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("task", choices=sorted(TASKS), help="the task the cases are for")
    parser.add_argument("csv", type=Path, help="the dataset file (the papers' CSV format, or pxp's: see docs/tasks-and-data.md)")
    parser.add_argument(
        "--images",
        type=Path,
        metavar="DIR",
        help="the folder image paths are read under, and nothing outside it (default: the CSV's folder)",
    )
    parser.add_argument(
        "--encoding",
        type=_encoding,
        default="utf-8",
        help="the CSV's text encoding, e.g. cp1252 for Excel's plain CSV on Windows (default: utf-8, byte-order mark or not)",
    )
    parser.add_argument("--name", help="the dataset's name (default: the CSV's file name without .csv)")
    splits = parser.add_mutually_exclusive_group()
    splits.add_argument("--split", choices=SPLITS, help="put every row of this file in one split")
    splits.add_argument("--seeded-split", metavar="SHARES", help="split at random, e.g. 60/20/20 (train/val/test), stratified")
    parser.add_argument("--seed", type=int, default=0, help="seed of --seeded-split (default: 0)")
    parser.add_argument("--append", action="store_true", help="add the rows to an existing dataset of the same task")


def _encoding(name: str) -> str:
    try:
        codecs.lookup(name)
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown encoding {name!r} (e.g. utf-8, cp1252, latin-1)") from None
    return name


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import Blackboard, BlackboardError, access
    from pxp_tui.cli.progress import progress_bar
    from pxp_tui.tasks import get_task
    from pxp_tui.tasks.splits import assign, parse_ratios, set_split

    name = (args.name if args.name is not None else args.csv.stem).strip()
    if not name:
        raise ValueError("the dataset name is empty")
    if args.images is not None and not args.images.is_dir():
        raise ValueError(f"--images {args.images}: no such folder")
    ratios = parse_ratios(args.seeded_split) if args.seeded_split else None
    refused = access.problem(Path(args.db), write=True)  # before a long check of the file, not after it
    if refused:
        raise BlackboardError(refused)
    task = get_task(args.task)
    with progress_bar() as progress:
        # every problem, before anything is written
        rows = task.read_dataset(args.csv, images_dir=args.images, encoding=args.encoding, progress=progress)
        if args.split:
            rows = set_split(rows, args.split)
        elif ratios:
            rows = assign(rows, ratios, args.seed, lambda row: task.normalise(row.reference_prediction))
        with Blackboard.open(args.db) as board:
            board.add_dataset(
                name, args.task, rows, source=str(args.csv), description=task.title, append=args.append, progress=progress
            )
    counts = {s: sum(r.split == s for r in rows) for s in SPLITS}
    images = sum(r.has_image for r in rows)
    verb = "added" if args.append else "imported"
    splits = ", ".join(f"{s} {n}" for s, n in counts.items() if n)
    print(f"{verb} {len(rows)} {args.task} instances ({splits}; {images} images) into dataset {name!r} -> {args.db}")
    return 0
