"""``pxp review``: browse past runs and replay their sessions, read-only."""

from __future__ import annotations

import argparse

from pxp_tui.cli.common import add_db


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)


def main(args: argparse.Namespace) -> int:
    from pxp_tui.app.review.runs_screen import open_board

    open_board(args.db).close()  # a missing or foreign file: one line, exit 2, before any screen
    from pxp_tui.app.shell.launch import run_review

    return run_review(args.db)
