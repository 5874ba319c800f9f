"""``pxp merge OUT.db IN.db...`` (or ``pxp merge --out OUT.db IN.db...``): combine blackboards of several experts or
machines into one."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pxp_tui.blackboard.merge import Merged


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="DB",
        help="the merged blackboard (created if missing), then the blackboards to copy runs from",
    )
    parser.add_argument("--out", metavar="OUT.db", help="the merged blackboard; then every DB given is an input")


def files(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """The merged blackboard and the inputs: ``--out`` and every path, or the first path and the others."""
    paths = [Path(p) for p in args.paths]
    if args.out is not None and paths:
        return Path(args.out), paths
    if args.out is not None or len(paths) < 2:
        raise ValueError("merge needs the merged blackboard and at least one input: pxp merge OUT.db IN.db... (or --out OUT.db)")
    return paths[0], paths[1:]


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.blackboard.merge import check_sources, merge

    out, inputs = files(args)
    check_sources(inputs, out)  # before OUT is created or touched
    with Blackboard.open(out) as target:
        results = merge(target, inputs)
    for item in results:
        print(_line(item, out))
        for old, new in item.renamed.items():
            if old != new:
                print(f"  dataset {old!r} differs from the one in {out}: copied as {new!r}")
        for table in item.not_copied:
            print(f"  table {table!r} not copied: {out} has no such table")
    return 0


def _ids(pairs: list[tuple[int, int]]) -> str:
    return ", ".join(f"{old}->{new}" for old, new in pairs) or "none"


def _line(item: Merged, out: Path) -> str:
    """What one input brought, on one line."""
    line = f"{item.source}: {len(item.runs)} run(s) added (ids {_ids(item.runs)})"
    if item.updated:
        line += f", {len(item.updated)} brought up to date (ids {_ids(item.updated)})"
    line += f", {item.sessions} sessions, {item.messages} messages"
    if item.current:
        line += f"; {len(item.current)} already up to date in {out} (runs {', '.join(map(str, item.current))})"
    return line
