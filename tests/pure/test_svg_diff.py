"""A failing snapshot test's message (pxp_harness/svg_diff.py): the rows whose text differs, with both texts, and the rows
whose colours alone differ, read from the SVGs Textual draws."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.svg_diff import differences, screen

SNAPSHOT = (
    Path(__file__).resolve().parents[1]
    / "app"
    / "__snapshots__"
    / "test_app_snapshots"
    / "test_drug_session_at_the_experts_first_turn[80x24].svg"
)


def test_the_screen_s_rows_are_read_from_the_svg() -> None:
    shown = screen(SNAPSHOT.read_text())
    assert shown.rows() == 24
    assert shown.row(1).startswith(" Paracetamol  smiles CC(=O)Nc1ccc(O)cc1 ╭─ Your answer ─")
    assert shown.row(23).startswith("g Guards ^s Send m Metrics")


def test_a_row_whose_text_differs_is_shown_as_expected_and_as_drawn() -> None:
    svg = SNAPSHOT.read_text()
    said = differences(svg, svg.replace("Paracetamol", "Ibuprofen"))  # in the cells Paracetamol took
    assert said.splitlines() == [
        "row  1 expected: ' Paracetamol  smiles CC(=O)Nc1ccc(O)cc1 ╭─ Your answer ────────────────────────╮'",
        "row  1 actual:   ' Ibuprofen    smiles CC(=O)Nc1ccc(O)cc1 ╭─ Your answer ────────────────────────╮'",
    ]


def test_a_row_whose_colours_alone_differ_is_named_with_the_colours() -> None:
    svg = SNAPSHOT.read_text()
    footer = '<rect fill="#242f38" x="12.2" y="562.7" width="85.4"'  # the footer's first key, "g Guards", on row 23
    assert footer in svg
    said = differences(svg, svg.replace(footer, footer.replace("#242f38", "#ff0000")))
    assert said.startswith("row 23 same text 'g Guards ^s Send m Metrics"), said
    expected, actual = "('fill: #e0e0e0', '#242f38')", "('fill: #e0e0e0', '#ff0000')"  # (text, background)
    assert said.endswith(f"colours differ in 7 columns from 1: expected {expected}, actual {actual}"), said
    assert differences(svg, svg) == "no row differs in text or colour (the SVGs differ elsewhere)"
