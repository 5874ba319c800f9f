"""Options and helpers shared by subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_DB = "sessions.db"


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help=f"the blackboard file (default: {DEFAULT_DB})")


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def open_existing(path: str):  # noqa: ANN201 - Blackboard, imported lazily
    """Open a blackboard that must already exist (reading commands); read-only if this user may not write it."""
    from pxp_tui.blackboard import Blackboard, access

    return Blackboard.open(Path(path), create=False, readonly=Path(path).exists() and not access.writable(Path(path)))
