"""``pxp``: the entry point. Subcommands live in their own modules and are imported when used."""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("pxp_tui.cli.run", "run PXP sessions (headless, or in the app)"),
    "metrics": ("pxp_tui.cli.metrics", "the intelligibility table of runs"),
    "app": ("pxp_tui.cli.app", "the app, at its start screen (what `pxp` alone opens)"),
    "serve": ("pxp_tui.cli.serve", "the app in a web browser: one app per browser tab, on one blackboard"),
    "export": ("pxp_tui.cli.export", "tables and intelligibility views as CSV, JSON, NDJSON or Markdown"),
    "merge": ("pxp_tui.cli.merge", "combine blackboards of several experts or machines into one"),
    "review": ("pxp_tui.cli.review", "browse past runs and replay their sessions, read-only"),
    "report": ("pxp_tui.cli.report", "the papers' table, curves and performance as Markdown, CSV and PNG"),
    "import": ("pxp_tui.cli.importing", "import a dataset file (RAD or DRUG cases) into the blackboard"),
    "datasets": ("pxp_tui.cli.datasets", "the datasets in the blackboard"),
    "evaluations": ("pxp_tui.cli.evaluations", "machine performance measured during runs"),
}


class UsageError(Exception):
    """Bad arguments: reported on one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def parser(chosen: str | None = None) -> Parser:
    """``pxp``'s parser, with the arguments of subcommand ``chosen`` (all of them when None).

    A subcommand's arguments come from its module, which importing costs (the run's defaults bring the
    engine and the agents): ``pxp`` alone, the app, would wait 0.1 s on modules it needs only later.
    """
    root = Parser(prog="pxp", description="PXP intelligibility-protocol sessions between an expert and an LLM.")
    from pxp_tui import __version__

    root.add_argument("--version", action="version", version=f"pxp-tui {__version__}")
    sub = root.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if chosen is None or name == chosen:
            import_module(module).add_arguments(command)
        command.set_defaults(module=module)
    return root


def _chosen(argv: list[str]) -> str:
    """The subcommand ``argv`` names (its first word that is one), or ``app`` (what ``pxp`` alone opens)."""
    return next((word for word in argv if word in COMMANDS), "app")


def main(argv: list[str] | None = None) -> int:
    """``pxp``: everything it prints for reading goes through :func:`~pxp_tui.common.visible.visible`."""
    from pxp_tui.cli.output import visible_output

    with visible_output():
        return _main(sys.argv[1:] if argv is None else argv)


def _main(argv: list[str]) -> int:
    args = None
    try:
        chosen = _chosen(argv)
        args = parser(chosen).parse_args(argv)
        if args.command is None:
            args = parser(chosen).parse_args(["app"])  # the app, on the bundled demo
        code = int(import_module(args.module).main(args) or 0)
        sys.stdout.flush()  # here, not at exit: a full disk under a redirected output is said like any other error
        return code
    except UsageError as exc:
        print(f"pxp: error: {exc}", file=sys.stderr)
        return 2
    except (_BlackboardError(), ValueError) as exc:
        print(f"pxp: error: {exc}", file=sys.stderr)
        return 2
    except _SQLiteError() as exc:  # a write SQLite refused outside the places that say more (disk full, read-only)
        from pxp_tui.blackboard.access import describe_error

        print(f"pxp: error: {getattr(args, 'db', 'the blackboard')}: {describe_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pxp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `pxp metrics --json | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # the system refused a read or a write (a full disk, say): one line, not a traceback
        from pxp_tui.common.files import describe

        try:
            sys.stdout.flush()
        except OSError:  # the output itself cannot be written: what is left of it goes nowhere
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"pxp: error: {where}{describe(exc)}", file=sys.stderr)
        return 1


def _BlackboardError() -> type[Exception]:  # noqa: N802 - stands for the class
    """The blackboard's error class if its module was imported (only then can one have been raised).

    Not imported up front: it loads sqlite-utils, which `pxp` alone (the app) needs only after first paint.
    """
    module = sys.modules.get("pxp_tui.blackboard")
    return module.BlackboardError if module is not None else ValueError


def _SQLiteError() -> type[Exception]:  # noqa: N802 - stands for the class
    """sqlite3's error class if it was imported (only then can one have been raised); never matches otherwise."""
    module = sys.modules.get("sqlite3")
    return module.Error if module is not None else _NeverRaisedError


class _NeverRaisedError(Exception):
    """Raised by nothing."""
