"""``pxp review``: browse past runs and replay their sessions, read-only."""

from __future__ import annotations

import argparse

from pxp_tui.cli.common import add_db


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)


def main(args: argparse.Namespace) -> int:
    from pxp_tui.app.review.runs_screen import open_board

    open_board(args.db).close()  # a missing or foreign file: one line, exit 2, before any screen
    import textual_image.widget  # noqa: F401 - asks the terminal what it can draw before Textual starts

    from pxp_tui.app.review import ReviewApp

    ReviewApp(args.db).run()
    return 0
