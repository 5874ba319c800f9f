"""``pxp serve``: the app in a web browser (textual-serve), one app per browser tab, on one blackboard."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pxp_tui.cli.common import add_db

#: this machine only: reached from elsewhere through an ssh tunnel or a reverse proxy (docs/browser.md)
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8470


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (0 to 65535; 0 picks a free one)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="P",
        help=f"the port to listen on (default: {DEFAULT_PORT}; 0: a free one)",
    )
    parser.add_argument(
        "--bind",
        default=DEFAULT_HOST,
        metavar="ADDRESS",
        help=f"the address to listen on (default: {DEFAULT_HOST}, this machine only); any other is reachable by others "
        "over plain http (the printed address's key is the only guard): a warning says so",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address the browsers open when it is not the one listened on (a reverse proxy's https://...); "
        "required with --bind 0.0.0.0",
    )


def main(args: argparse.Namespace) -> int:
    from pxp_tui.app.shell.serve import PXPServer, warning
    from pxp_tui.blackboard import Blackboard

    server = PXPServer(Path(args.db), host=args.bind, port=args.port, public_url=args.public_url)  # bad arguments: no file made
    try:
        Blackboard.open(Path(args.db)).close()  # made or migrated now; a foreign file is said in one line, before serving
    except BaseException:
        server.socket.close()
        raise
    caution = warning(args.bind)
    if caution:
        print(caution, file=sys.stderr, flush=True)
    server.serve()
    return 0
