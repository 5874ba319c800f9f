"""``pxp app`` (and ``pxp`` alone): the app on a blackboard, starting at the start screen."""

from __future__ import annotations

import argparse

from pxp_tui.cli.common import add_db


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)


def main(args: argparse.Namespace) -> int:
    from pxp_tui.app.shell.launch import run_app

    return run_app(args.db)
