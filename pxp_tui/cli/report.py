"""``pxp report``: the papers' table by run, experiment or expert, the curves, machine performance."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from pxp_tui.cli.common import add_db, open_existing, positive
from pxp_tui.cli.output import data_stream

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
        "were timed) and, for runs with distributions, information.csv, information.png (EVINCE's measures by round), "
        "evaluation.csv, confusion.csv and case-<session>.png (the longest sessions' distributions by round) to DIR",
    )
    parser.add_argument(
        "--cases",
        type=int,
        default=3,
        metavar="N",
        help="with --out: draw the N longest debates one by one, their distributions round by round (default: 3)",
    )


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import debate_eval, evaluations, notes, rounds
    from pxp_tui.report import columns, evaluation, information, render

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
        ranks = debate_eval.ranks(board.db, [r.id for r in runs])
        cases = {
            s["session_id"]: rounds.case_distributions(board.db, s["session_id"])
            for s in information.longest(sessions, max(0, args.cases))
        }
    debate = Debate(summary, sessions, evaluation.markdown(ranks), ranks, cases)
    figure = None
    if args.out:
        from pxp_tui.common.files import describe

        try:
            figure = _write(Path(args.out), args.db, runs, cols, measured, times, debate)
        except OSError as exc:
            raise ValueError(f"cannot write the report to {args.out}: {describe(exc)}; nothing was written there") from None
    if args.format == "csv":
        print(render.csv_text(render.table_rows(cols)), end="", file=data_stream())
    else:
        print(render.report_markdown(args.db, runs, cols, measured, figure, times, debate.section(bool(args.out))), end="")
    return 0


@dataclass
class Debate:
    """What the report shows of EVINCE: rounds, sessions, the evaluation, the sessions drawn one by one."""

    summary: list
    sessions: list
    evaluation: str
    ranks: list
    cases: dict

    def section(self, drawn: bool) -> str | None:
        from pxp_tui.report import information

        if not self.summary and not self.evaluation:
            return None
        figure = "information.png" if drawn and self.summary else None
        pictures = [f"case-{session_id}.png" for session_id in self.cases] if drawn else []
        return information.markdown(self.summary, self.sessions, figure, self.evaluation, pictures)


def _write(out: Path, source: str, runs: list, cols: list, measured: tuple | None, times: dict, debate: Debate) -> str:
    from pxp_tui.common.files import output_folder
    from pxp_tui.report import answer_times, evaluation, evince_figures, figure, information, render

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
    if debate.summary:
        files["information.csv"] = render.csv_text(information.csv_rows(debate.summary))
    if debate.ranks:
        files["evaluation.csv"] = render.csv_text(evaluation.accuracy_rows(debate.ranks))
        files["confusion.csv"] = render.csv_text(evaluation.confusion_rows(debate.ranks))
    files["report.md"] = render.report_markdown(source, runs, cols, measured, "curves.png", times, debate.section(True))
    pictures = ["curves.png", *(["information.png"] if debate.summary else [])]
    pictures += [f"case-{session_id}.png" for session_id in debate.cases]
    with output_folder(out) as partial:  # every file whole, or none (a full disk leaves out as it was)
        for name, text in files.items():
            (partial / name).write_text(text, encoding="utf-8")
        figure.draw(cols, partial / "curves.png")
        if debate.summary:
            information.draw(debate.summary, partial / "information.png")
        for session_id, (key, label, rows) in debate.cases.items():
            title = f"Session {session_id} ({key}): each agent's distribution by round" + (
                f"; the label: {label}" if label else ""
            )
            evince_figures.draw_case(evince_figures.case_rounds(rows), partial / f"case-{session_id}.png", title, label)
    import sys

    for name in [*files, *pictures]:
        print(f"wrote {out / name}", file=sys.stderr)
    return "curves.png"
