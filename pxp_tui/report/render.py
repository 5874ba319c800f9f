"""A report as Markdown and CSV: the runs, the papers' table, the curves, machine performance."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from pxp_tui.blackboard.records import Run
from pxp_tui.common.visible import visible
from pxp_tui.config import RunConfig
from pxp_tui.protocol.repeats import CountsSpread, Spread
from pxp_tui.report.columns import Column
from pxp_tui.report.table import ROWS

#: short names of the classes, for the curves' headers
SHORT = {
    "one_way_human": "1-way h",
    "one_way_machine": "1-way m",
    "two_way": "2-way",
    "strong_human": "strong h",
    "strong_machine": "strong m",
    "ultra_strong_human": "ultra h",
    "ultra_strong_machine": "ultra m",
}
RUN_FIELDS = ("id", "task", "dataset", "model", "checker", "human", "n", "k", "context", "experiment", "status", "created_at")
#: the fields of a run's configuration (``Run.config``)
CONFIG_FIELDS = frozenset(f.name for f in fields(RunConfig))


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _with_range(text: str, value: Spread) -> str:
    """``text``, then `` [min, max]`` when repeated runs differ."""
    return text if value.low == value.high else f"{text} [{value.low}, {value.high}]"


def spread_text(value: Spread) -> str:
    """``18``, or ``18 [17, 19]`` when repeated runs differ."""
    return _with_range(number(value.median), value)


def cell(table: CountsSpread, name: str | None) -> str:
    """A cell of the papers' table: count (proportion), with [min, max] over repeated runs."""
    if name is None:
        return spread_text(table.sessions)
    value = table.classes[name]
    return _with_range(f"{number(value.median)} ({table.proportion(name):.2f})", value)


def markdown_table(rows: Sequence[Sequence[Any]], *, right_from: int = 1) -> str:
    """A GitHub-flavoured Markdown table; the first row is the header."""

    def clean(value: Any) -> str:
        return "" if value is None else visible(str(value)).replace("|", "\\|").replace("\n", " ")

    header, *body = rows
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    return "\n".join("| " + " | ".join(clean(v) for v in row) + " |" for row in [header, align, *body])


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


# -- the papers' table ---------------------------------------------------------------------------
def table_markdown(columns: Sequence[Column]) -> str:
    rows: list[list[str]] = [["Count", "", *(c.label for c in columns)]]
    tables = [c.table for c in columns]
    rows += [[a, b, *(cell(t, name) for t in tables)] for a, b, name in ROWS]
    return markdown_table(rows, right_from=2)


def table_rows(columns: Sequence[Column]) -> list[list[Any]]:
    """The table in long form: one row per column and measure."""
    rows: list[list[Any]] = [["column", "runs", "measure", "median", "min", "max", "proportion"]]
    for column in columns:
        table = column.table
        runs = " ".join(str(r) for r in column.run_ids)
        rows.append([column.label, runs, "sessions", number(table.sessions.median), table.sessions.low, table.sessions.high, ""])
        for name, value in table.classes.items():
            rows.append([column.label, runs, name, number(value.median), value.low, value.high, f"{table.proportion(name):.4f}"])
    return rows


# -- curves --------------------------------------------------------------------------------------
def curves_markdown(column: Column) -> str:
    rows: list[list[str]] = [["j*", "sessions", *SHORT.values()]]
    for j, point in enumerate(column.curve, start=1):
        rows.append([str(j), spread_text(point.sessions), *(spread_text(point.classes[name]) for name in SHORT)])
    return markdown_table(rows)


def curves_rows(columns: Sequence[Column]) -> list[list[Any]]:
    rows: list[list[Any]] = [["column", "j", "measure", "median", "min", "max"]]
    for column in columns:
        for j, point in enumerate(column.curve, start=1):
            for name, value in {"sessions": point.sessions, **point.classes}.items():
                rows.append([column.label, j, name, number(value.median), value.low, value.high])
    return rows


# -- runs and performance ------------------------------------------------------------------------
def runs_markdown(runs: Sequence[Run]) -> str:
    return markdown_table([list(RUN_FIELDS), *([_field(r, f) for f in RUN_FIELDS] for r in runs)], right_from=len(RUN_FIELDS))


def _field(run: Run, name: str) -> Any:
    """A column of the runs table: a field of the run's configuration, or of the stored run (id, human, status...)."""
    return getattr(run.config if name in CONFIG_FIELDS else run, name)


def performance_rows(found: tuple[str, list[dict[str, Any]]]) -> list[list[Any]]:
    _, rows = found
    header = list(rows[0])
    return [header, *([row[h] for h in header] for row in rows)]


def seeds_note(columns: Sequence[Column]) -> list[str]:
    """A sentence for each column that pools runs of different ``--seed``s (none if no column does)."""
    pooled = [c for c in columns if len(c.seeds) > 1]
    return [
        f"Column {visible(c.label, one_line=True)} pools runs whose `--seed` differs "
        f"({', '.join('dataset order' if s is None else str(s) for s in c.seeds)}): their instances came in another "
        "order, and they are counted as repetitions of one configuration."
        for c in pooled
    ]


def report_markdown(
    source: str,
    runs: Sequence[Run],
    columns: Sequence[Column],
    performance: tuple[str, list[dict[str, Any]]] | None,
    figure: str | None = None,
    answer_times: Mapping[int, Sequence[float]] | None = None,
    information: str | None = None,
    agreement: Sequence[Sequence[Any]] | None = None,
) -> str:
    """The whole report as one Markdown document (with ``answer_times``, run id -> the expert's ms per answer,
    a section on the time per answer; ``information``: the body of the "Information (EVINCE)" section
    (:mod:`pxp_tui.report.information`), shown when the runs have rounds)."""
    parts = [
        "# PXP intelligibility report",
        f"Blackboard `{source}`: {len(runs)} run(s). Counts are over finished sessions (skipped ones left out); a column of "
        "repeated runs gives the median with [min, max] where they differ.",
        "## Runs",
        runs_markdown(runs),
        "## Intelligibility",
        table_markdown(columns),
        *seeds_note(columns),
        "## Intelligibility versus message bound",
        'Counts when only messages j <= j* are kept (the papers\' "intelligibility vs length").',
    ]
    if figure:
        parts.append(f"![intelligibility versus message bound]({figure})")
    for column in columns:
        parts += [f"### {visible(column.label, one_line=True)}", curves_markdown(column)]
    parts.append("## Machine performance")
    if performance is None:
        parts.append("Not evaluated: these runs have no machine-performance measurements in the blackboard.")
    else:
        if figure and any(row.get("split") == "test" for row in performance[1]):
            parts.append("![machine performance: test accuracy at the start, after kept sessions, at the end](performance.png)")
        parts += [f"From table `{performance[0]}`, in the order measured.", markdown_table(performance_rows(performance))]
    if answer_times is not None:
        from pxp_tui.report import answer_times as timing

        parts += timing.markdown(runs, answer_times)
    if agreement and len(agreement) > 1:
        parts += [
            "## Agreement between experts",
            "Two experts who answered the same instances: on the tag of their first reply (their judgement of the "
            "machine's opening answer) and on their own prediction (as MATCH compares it); Cohen's kappa "
            "(scikit-learn) and the share of instances on which they gave the same. Each expert judged the opening of "
            "their own run, which differs between runs when the model samples: each measure is given over the "
            "instances where both judged the same opening (the same prediction and explanation), then over every "
            "instance both answered, each with its count.",
            markdown_table(agreement, right_from=4),
        ]
    if information:
        parts += ["## Information (EVINCE)", information]
    # every cell and heading of data is made visible above; the whole document again, so that nothing quoted
    # in it (the blackboard's path, a section's text) can hold a terminal escape when the file is printed
    return visible("\n\n".join(parts) + "\n")
