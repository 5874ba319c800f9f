"""``pxp import``: read a dataset file, check all of it, then store it in the blackboard in one transaction."""

from __future__ import annotations

import argparse
import codecs
from dataclasses import replace
from pathlib import Path
from typing import Any

from pxp_tui.cli.common import add_db
from pxp_tui.tasks import TASKS
from pxp_tui.tasks.csvdata import SHOTS, SPLITS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument("task", choices=sorted(TASKS), help="the task the cases are for")
    parser.add_argument(
        "csv",
        type=Path,
        nargs="+",
        help="the dataset file (the papers' CSV format, or pxp's: see docs/tasks-and-data.md); several are read as one, in order",
    )
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
    parser.add_argument("--name", help="the dataset's name (default: the first CSV's file name without .csv)")
    splits = parser.add_mutually_exclusive_group()
    splits.add_argument("--split", choices=SPLITS, help="put every row of this file in one split")
    splits.add_argument("--seeded-split", metavar="SHARES", help="split at random, e.g. 60/20/20 (train/val/test), stratified")
    splits.add_argument(
        "--reference-split",
        action="store_true",
        help="DRUG: the reference scripts' split of retro.csv (shuffled with seed 42; train the first 10%%, val 60-80%%, "
        "test 80-100%%; the rows between are left out, as the reference leaves them)",
    )
    parser.add_argument(
        "--per-label",
        type=int,
        metavar="N",
        help="keep the first N rows of each label, in file order (the papers' 20 X-rays, 4 per disease)",
    )
    parser.add_argument(
        "--few-shot",
        type=Path,
        metavar="CSV",
        help="DRUG: examples for the reference's prompts (--prompts reference), kept as the dataset's `shots` split",
    )
    parser.add_argument(
        "--papers-selection",
        action="store_true",
        help="DRUG: keep only the papers' molecules: targets of 150-300 g/mol with an aromatic ring (applied after the split)",
    )
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
    from pxp_tui.tasks.splits import assign, parse_ratios, per_label, reference_split, set_split

    name = (args.name if args.name is not None else args.csv[0].stem).strip()
    if not name:
        raise ValueError("the dataset name is empty")
    if args.images is not None and not args.images.is_dir():
        raise ValueError(f"--images {args.images}: no such folder")
    ratios = parse_ratios(args.seeded_split) if args.seeded_split else None
    refused = access.problem(Path(args.db), write=True)  # before a long check of the file, not after it
    if refused:
        raise BlackboardError(refused)
    if args.papers_selection and args.task != "drug":
        raise ValueError(
            "--papers-selection is the papers' choice of DRUG molecules (a weight and an aromatic ring), not of other tasks"
        )
    if (args.reference_split or args.few_shot) and args.task != "drug":
        option = "--reference-split" if args.reference_split else "--few-shot"
        raise ValueError(
            f"{option} is for DRUG; the reference splits RAD by file: import train_xray_data.csv with --split train, "
            "then val_xray_data.csv with --split val --append"
        )
    task = get_task(args.task)
    left_out = not_selected = 0
    with progress_bar() as progress:
        # every problem, before anything is written
        rows = read_all(task, args.csv, args.images, args.encoding, progress)
        if args.per_label is not None:
            rows = per_label(rows, args.per_label, lambda row: task.normalise(row.reference_prediction))
        if args.split:
            rows = set_split(rows, args.split)
        elif ratios:
            rows = assign(rows, ratios, args.seed, lambda row: task.normalise(row.reference_prediction))
        elif args.reference_split:
            rows, left_out = reference_split(rows)
        if args.papers_selection:
            from pxp_tui.tasks.drug.selection import select

            rows, not_selected = select(rows)
            if not rows:
                raise ValueError(
                    "no molecule of the file meets the papers' selection (150-300 g/mol with an aromatic ring); nothing imported"
                )
        if args.few_shot:
            rows += shots(task.read_dataset(args.few_shot, encoding=args.encoding, progress=progress))
        with Blackboard.open(args.db) as board:
            source = " ".join(map(str, [*args.csv, *([args.few_shot] if args.few_shot else [])]))
            board.add_dataset(name, args.task, rows, source=source, description=task.title, append=args.append, progress=progress)
    counts = {s: sum(r.split == s for r in rows) for s in (*SPLITS, SHOTS)}
    images = sum(r.has_image for r in rows)
    verb = "added" if args.append else "imported"
    splits = ", ".join(f"{s} {n}" for s, n in counts.items() if n)
    out = f"; {left_out} rows left out, as the reference leaves them" if left_out else ""
    if not_selected:
        from pxp_tui.tasks.drug.selection import DESCRIBED

        out += f"; {not_selected} left out by the papers' selection, {DESCRIBED}"
    print(f"{verb} {len(rows)} {args.task} instances ({splits}; {images} images{out}) into dataset {name!r} -> {args.db}")
    return 0


def read_all(task: Any, paths: list[Path], images: Path | None, encoding: str, progress: Any) -> list[Any]:
    """The rows of every file, in order; ValueError if a key is in two of them."""
    rows: list[Any] = []
    owner: dict[str, Path] = {}
    for path in paths:
        for row in task.read_dataset(path, images_dir=images, encoding=encoding, progress=progress):
            if row.key in owner:
                raise ValueError(f"key {row.key!r} is in both {owner[row.key]} and {path}; nothing imported")
            owner[row.key] = path
            rows.append(row)
    return rows


def shots(rows: list[Any]) -> list[Any]:
    """Few-shot examples: the ``shots`` split, keyed ``shot-001``, ``shot-002``, ..."""
    return [replace(row, key=f"shot-{number:03d}", split=SHOTS) for number, row in enumerate(rows, start=1)]
