"""``pxp report``: the papers' table by run, experiment or expert, the curves, machine performance."""

from __future__ import annotations

import argparse
from pathlib import Path

from pxp_tui.cli.common import add_db, open_existing, positive

FORMATS = ("markdown", "csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--runs", type=positive, nargs="+", metavar="ID", help="these runs (default: every run)")
    which.add_argument("--experiment", metavar="NAME", help="the runs of this experiment (see `pxp run --repeat`)")
    parser.add_argument(
        "--by",
        choices=["run", "experiment", "expert"],
        help="one column per run, per experiment (median [min, max]) or per expert "
        "(default: experiment with --experiment, else run)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="markdown",
        help="what is printed: the whole report as Markdown, or the table as CSV (default: markdown)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="also write report.md, intelligibility.csv, curves.csv, curves.png, performance.csv, answer_times.csv (when answers "
        "were timed) and (for runs with distributions) information.csv and information.png to DIR",
    )


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import evaluations, notes, rounds
    from pxp_tui.report import columns, information, render

    by = args.by or ("experiment" if args.experiment else "run")
    with open_existing(args.db) as board:
        runs = columns.select(board, args.runs, args.experiment)
        if not runs:
            print(f"no runs in {args.db}")
            return 0
        cols = columns.columns(board, runs, by)
        measured = evaluations.report_rows(board, [r.id for r in runs])
        times = notes.answer_times(board, [r.id for r in runs])
        summary = information.per_round(rounds.round_rows(board.db, [r.id for r in runs]))
        sessions = rounds.session_rows(board.db, [r.id for r in runs])
    figure = None
    if args.out:
        from pxp_tui.common.files import describe

        try:
            figure = _write(Path(args.out), args.db, runs, cols, measured, times, summary, sessions)
        except OSError as exc:
            raise ValueError(f"cannot write the report to {args.out}: {describe(exc)}; nothing was written there") from None
    if args.format == "csv":
        print(render.csv_text(render.table_rows(cols)), end="")
    else:
        drawn = "information.png" if args.out and summary else None
        section = information.markdown(summary, sessions, drawn) if summary else None
        print(render.report_markdown(args.db, runs, cols, measured, figure, times, section), end="")
    return 0


def _write(
    out: Path, source: str, runs: list, cols: list, measured: tuple | None, times: dict, summary: list, sessions: list
) -> str:
    from pxp_tui.common.files import output_folder
    from pxp_tui.report import answer_times, figure, information, render

    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a directory")
    files = {
        "intelligibility.csv": render.csv_text(render.table_rows(cols)),
        "curves.csv": render.csv_text(render.curves_rows(cols)),
    }
    if measured is not None:
        files["performance.csv"] = render.csv_text(render.performance_rows(measured))
    if any(times.values()):
        files["answer_times.csv"] = render.csv_text(answer_times.rows(runs, times))
    section = information.markdown(summary, sessions, "information.png") if summary else None
    if summary:
        files["information.csv"] = render.csv_text(information.csv_rows(summary))
    files["report.md"] = render.report_markdown(source, runs, cols, measured, "curves.png", times, section)
    pictures = ["curves.png", *(["information.png"] if summary else [])]
    with output_folder(out) as partial:  # every file whole, or none (a full disk leaves out as it was)
        for name, text in files.items():
            (partial / name).write_text(text, encoding="utf-8")
        figure.draw(cols, partial / "curves.png")
        if summary:
            information.draw(summary, partial / "information.png")
    import sys

    for name in [*files, *pictures]:
        print(f"wrote {out / name}", file=sys.stderr)
    return "curves.png"
