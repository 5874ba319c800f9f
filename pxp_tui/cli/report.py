"""``pxp report``: the papers' table by run, experiment or expert, the curves, machine performance."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pxp_tui.cli.common import add_db, open_existing, positive
from pxp_tui.cli.output import data_stream

if TYPE_CHECKING:
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.blackboard.records import Run

FORMATS = ("markdown", "csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--runs", type=positive, nargs="+", metavar="ID", help="these runs (default: every run)")
    which.add_argument("--experiment", metavar="NAME", help="the runs of this experiment (see `pxp run --repeat`)")
    which.add_argument(
        "--column",
        action="append",
        metavar="LABEL=RUNS",
        help='a column of your naming, in the order given, e.g. --column "RAD=run 3" --column "DRUG=4-8" --column '
        '"DRUG-h1=EXPERIMENT" (run ids, ranges and experiment names, comma-separated); its runs must share one dataset '
        "and configuration",
    )
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
        help="also write report.md, intelligibility.csv, curves.csv, curves.png, performance.csv, agreement.csv (two experts on the same instances), answer_times.csv (when answers "
        "were timed) and, for runs with distributions, information.csv, information.png (EVINCE's measures by round), "
        "evaluation.csv, confusion.csv and case-<session>.png (the longest sessions' distributions by round) to DIR; "
        "every figure also as .svg and .pdf, and performance.png when the machine was measured on a test split",
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
    if args.column and args.by:
        raise ValueError("--column names the columns itself: leave out --by")
    with open_existing(args.db) as board:
        if args.column:
            cols = columns.named_columns(board, args.column)
            runs = sorted({r.id: r for c in cols for r in c.runs}.values(), key=lambda r: r.id)
        else:
            runs = columns.select(board, args.runs, args.experiment)
            if not runs:
                print(f"no runs in {args.db}")
                return 0
            cols = columns.columns(board, runs, by)
        measured = evaluations.report_rows(board, [r.id for r in runs])
        agreed = _agreement(board, runs)
        times = notes.answer_times(board, [r.id for r in runs])
        summary = information.per_round(rounds.round_rows(board.db, [r.id for r in runs]))
        sessions = rounds.session_rows(board.db, [r.id for r in runs])
        unstated = rounds.unstated_rows(board.db, [r.id for r in runs])
        ranks = debate_eval.ranks(board.db, [r.id for r in runs])
        cases = {
            s["session_id"]: rounds.case_distributions(board.db, s["session_id"])
            for s in information.longest(sessions, max(0, args.cases))
        }
    debate = Debate(summary, sessions, evaluation.markdown(ranks), ranks, cases, agreed, unstated)
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
        section = debate.section(bool(args.out))
        print(render.report_markdown(args.db, runs, cols, measured, figure, times, section, agreed), end="")
    return 0


def _agreement(board: Blackboard, runs: list[Run]) -> list[list[Any]] | None:
    """The agreement table of the experts among ``runs`` who answered the same instances (None: no such pair)."""
    if sum(r.config.human_kind.interactive for r in runs) < 2:
        return None
    from pxp_tui.blackboard.replies import first_replies
    from pxp_tui.report import agreement
    from pxp_tui.tasks import get_task

    found = agreement.between(runs, first_replies(board, [r.id for r in runs]), lambda t, p: get_task(t).normalise(p))
    return agreement.rows(found) if found else None


@dataclass
class Debate:
    """What the report shows of EVINCE: rounds, sessions, the evaluation, the sessions drawn one by one."""

    summary: list
    sessions: list
    evaluation: str
    ranks: list
    cases: dict
    agreement: list | None = None
    unstated: list = field(default_factory=list)  # rounds left out: a reply stated no distribution

    def section(self, drawn: bool) -> str | None:
        from pxp_tui.report import information

        if not self.summary and not self.evaluation and not self.unstated:
            return None
        figure = "information.png" if drawn and self.summary else None
        pictures = [f"case-{session_id}.png" for session_id in self.cases] if drawn else []
        return information.markdown(self.summary, self.sessions, figure, self.evaluation, pictures, self.unstated)


def _write(out: Path, source: str, runs: list, cols: list, measured: tuple | None, times: dict, debate: Debate) -> str:
    from pxp_tui.common.files import output_folder
    from pxp_tui.report import answer_times, evaluation, evince_figures, figure, information, performance_figure, render

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
    if debate.agreement:
        files["agreement.csv"] = render.csv_text(debate.agreement)
    files["report.md"] = render.report_markdown(
        source, runs, cols, measured, "curves.png", times, debate.section(True), debate.agreement
    )
    with output_folder(out) as partial:  # every file whole, or none (a full disk leaves out as it was)
        for name, text in files.items():
            (partial / name).write_text(text, encoding="utf-8")
        drawn = figure.draw(cols, partial / "curves.png")
        if measured is not None:
            drawn += performance_figure.draw(cols, measured[1], partial / "performance.png")
        if debate.summary:
            drawn += information.draw(debate.summary, partial / "information.png")
        for session_id, (key, label, rows) in debate.cases.items():
            title = f"Session {session_id} ({key}): each agent's distribution by round" + (
                f"; the label: {label}" if label else ""
            )
            drawn += evince_figures.draw_case(evince_figures.case_rounds(rows), partial / f"case-{session_id}.png", title, label)
        pictures = [p.name for p in drawn]
    import sys

    for name in [*files, *pictures]:
        print(f"wrote {out / name}", file=sys.stderr)
    return "curves.png"
