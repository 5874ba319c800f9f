"""The plain-text tables as a reader sees them in a terminal: a header, a rule as wide as the table, the text columns
left-aligned and the counts right-aligned under their headings, a stored line break shown on its one line."""

from __future__ import annotations

from pxp_tui.protocol import RunCounts
from pxp_tui.report.grid import grid
from pxp_tui.report.table import text


def test_a_grid_pads_its_columns_aligns_the_numbers_right_and_keeps_a_cell_on_one_line() -> None:
    shown = grid([["name", "n"], ["a\nb", "7"], ["ccc", "12"]], right=[1])
    assert shown.split("\n") == [
        "name   n",
        "--------",
        "a\\nb   7",  # the stored line break, escaped: the row stays one line
        "ccc   12",
    ]


def test_the_rule_under_the_header_is_as_wide_as_the_widest_row() -> None:
    for rows in ([["a"], ["bbbb"]], [["a", "b", "c"], ["dd", "eee", "f"]]):
        lines = grid(rows).split("\n")
        assert set(lines[1]) == {"-"} and len(lines[1]) == max(len(line) for line in lines)


def test_the_intelligibility_table_in_plain_text_right_aligns_each_runs_counts_under_its_heading() -> None:
    headings = ["run 1 RAD ana", "run 22 DRUG bo"]
    counts = [RunCounts(sessions=4, one_way_human=3, two_way=1), RunCounts(sessions=10, one_way_machine=10)]
    lines = text(headings, counts).split("\n")
    assert lines[0].startswith("Count ") and lines[0].endswith("run 1 RAD ana  run 22 DRUG bo")
    assert lines[1] == "-" * len(lines[0])
    ends = [lines[0].index(h) + len(h) for h in headings]  # where each heading ends: its counts end there too
    rows = [
        ("Total sessions", "", [str(c.sessions) for c in counts]),
        (
            "1-way intelligible sessions for:",
            "Human",
            [f"{c.one_way_human} ({c.one_way_human / c.sessions:.2f})" for c in counts],
        ),
        ("", "Machine", [f"{c.one_way_machine} ({c.one_way_machine / c.sessions:.2f})" for c in counts]),
        ("2-way intelligible sessions:", "", [f"{c.two_way} ({c.two_way / c.sessions:.2f})" for c in counts]),
    ]
    second = lines[0].index(headings[0]) - len("Machine") - 2  # the labels' second column starts after the widest first
    assert lines[0][: lines[0].index(headings[0])].strip() == "Count"  # the header names the counts, nothing more
    for line, (label, who, values) in zip(lines[2:], rows, strict=False):
        assert line.startswith(label) and line[second : second + len(who)] == who
        for end, value in zip(ends, values, strict=True):
            assert line[end - len(value) - 1 : end] == " " + value, (line, value)
