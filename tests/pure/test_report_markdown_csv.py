"""The report's Markdown and CSV as a reader opens them: a cell stays in its column and on its line, the numbers are
right-aligned, and each CSV column is found under the heading a spreadsheet shows."""

from __future__ import annotations

import csv
import io

from pxp_harness.records import a_run
from pxp_tui.protocol import RunCounts
from pxp_tui.report.columns import Column
from pxp_tui.report.render import csv_text, curves_rows, markdown_table, performance_rows, report_markdown, table_rows


def cells(line: str) -> list[str]:
    """A Markdown row's cells as a reader sees them (an escaped ``\\|`` is part of its cell)."""
    parts = line.strip().removeprefix("|").removesuffix("|").replace("\\|", "\0").split("|")
    return [p.strip().replace("\0", "|") for p in parts]


def records(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_markdown_cell_keeps_its_column_its_line_and_shows_nothing_for_no_value() -> None:
    shown = markdown_table([["experiment", "note", "sessions"], ["a|b", None, 7], ["two\nlines", "x", 12]], right_from=2)
    lines = shown.split("\n")
    assert len(lines) == 4  # the header, the alignment row, one line per row
    assert cells(lines[0]) == ["experiment", "note", "sessions"]
    assert cells(lines[1]) == ["---", "---", "---:"]  # text left, numbers right
    assert cells(lines[2]) == ["a|b", "", "7"]
    assert cells(lines[3]) == ["two lines", "x", "12"]


def test_csv_lines_end_with_a_line_feed_only() -> None:
    text = csv_text([["column", "runs"], ["DRUG", "1 2"]])
    assert "\r" not in text and text.split("\n") == ["column,runs", "DRUG,1 2", ""]


def column() -> Column:
    """Runs 3 and 4 of one configuration: 2 and 4 sessions, the curve under bounds 1 and 2."""
    counts = (RunCounts(sessions=2, two_way=1), RunCounts(sessions=4, two_way=2))
    curves = (
        (RunCounts(sessions=2), RunCounts(sessions=2, two_way=1)),
        (RunCounts(sessions=4), RunCounts(sessions=4, two_way=2)),
    )
    return Column("DRUG", (a_run(3), a_run(4)), counts, curves)


def test_the_long_table_names_each_columns_runs_and_its_median_min_and_max() -> None:
    found = records(csv_text(table_rows([column()])))
    sessions = next(r for r in found if r["measure"] == "sessions")
    assert sessions == {"column": "DRUG", "runs": "3 4", "measure": "sessions", "median": "3", "min": "2", "max": "4",
                        "proportion": ""}  # fmt: skip
    two_way = next(r for r in found if r["measure"] == "two_way")
    assert (two_way["median"], two_way["min"], two_way["max"], two_way["proportion"]) == ("1.5", "1", "2", "0.5000")


def test_the_curves_count_the_bound_from_one() -> None:
    found = records(csv_text(curves_rows([column()])))
    assert sorted({r["j"] for r in found}) == ["1", "2"]
    at_two = next(r for r in found if r["j"] == "2" and r["measure"] == "two_way")
    assert (at_two["median"], at_two["min"], at_two["max"]) == ("1.5", "1", "2")
    at_one = next(r for r in found if r["j"] == "1" and r["measure"] == "two_way")
    assert (at_one["median"], at_one["min"], at_one["max"]) == ("0", "0", "0")


def test_a_performance_table_of_one_row_keeps_its_headings() -> None:
    assert performance_rows(("accuracy", [{"run": 1, "accuracy": 0.5}])) == [["run", "accuracy"], [1, 0.5]]


def test_a_label_with_a_line_break_stays_one_line_in_its_heading_and_its_note() -> None:
    counts = (RunCounts(sessions=1), RunCounts(sessions=1))
    pooled = Column("DRUG two\nlines", (a_run(1, seed=1), a_run(2, seed=2)), counts, ((RunCounts(sessions=1),),) * 2)
    lines = report_markdown("board.db", list(pooled.runs), [pooled], None).split("\n")
    assert "### DRUG two\\nlines" in lines
    assert any(line.startswith("Column DRUG two\\nlines pools runs whose `--seed` differs (1, 2)") for line in lines)
    assert "Not evaluated: these runs have no machine-performance measurements in the blackboard." in lines


def test_the_agreement_and_information_sections_come_when_there_is_something_to_show() -> None:
    header = [["task", "expert", "expert ", "measure"]]
    body = [*header, ["DRUG", "h1", "h2", "tag"]]
    without = report_markdown("board.db", [], [], None, agreement=header)
    shown = report_markdown("board.db", [], [], None, agreement=body, information="EVINCE's body")
    assert "## Agreement between experts" not in without and "## Information (EVINCE)" not in without
    assert shown.startswith("# PXP intelligibility report\n")
    assert "## Agreement between experts" in shown.split("\n")
    assert shown.endswith("## Information (EVINCE)\n\nEVINCE's body\n")
