"""The report's figures: readable in print and without colour, at least 1200 px wide at 150 dpi, PNG, SVG and PDF;
the machine-performance figure's step lines (test accuracy at the start, after kept sessions, at the end)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from pxp_harness.boards import EVERY_CLASS, scripted_run
from pxp_harness.cli_helpers import pxp
from pxp_harness.records import a_run
from pxp_tui.blackboard import Blackboard, evaluations


def test_every_series_differs_in_marker_and_line_style_not_only_colour() -> None:
    from pxp_tui.report.style import series_style

    looks = [series_style(i) for i in range(8)]
    assert len({look["marker"] for look in looks}) == 8
    assert len({str(look["linestyle"]) for look in looks}) == 8


def test_a_runs_accuracy_holds_until_it_is_measured_again_and_columns_give_median_min_max() -> None:
    from pxp_tui.report.columns import Column
    from pxp_tui.report.performance_figure import series

    def measured(run_id: int, points: list[tuple[int, float]]) -> list[dict]:
        return [{"run_id": run_id, "split": "test", "sessions": s, "p_correct": p, "p_both": p} for s, p in points]

    rows = measured(1, [(0, 0.2), (3, 0.5), (9, 0.6)]) + measured(2, [(0, 0.4), (5, 0.8), (9, 0.8)])
    rows += [{"run_id": 1, "split": "val", "sessions": 4, "p_correct": 1.0, "p_both": 1.0}]  # validation: not drawn
    column = Column("DRUG", (a_run(1), a_run(2)), (), ())
    # at 3 run 2 still holds its start (0.4); at 5 run 1 holds what it had at 3 (0.5)
    assert series(column, rows, "p_correct") == [
        (0, 0.30000000000000004, 0.2, 0.4), (3, 0.45, 0.4, 0.5), (5, 0.65, 0.5, 0.8), (9, 0.7, 0.6, 0.8)
    ]  # fmt: skip


async def test_the_report_writes_both_figures_in_three_formats(db_path: Path, tmp_path: Path, capsys) -> None:
    scripts = [tags for _, tags in EVERY_CLASS]
    with Blackboard.open(db_path) as board:
        for _ in range(2):
            await scripted_run(board, scripts[:6], experiment="E")
        ids = [r[0] for r in board.db.execute("SELECT id FROM instances LIMIT 4")]
        for run_id, end in ((1, [True, True, False, False]), (2, [True, True, True, False])):
            for phase, correct in (("start", [True, False, False, False]), ("end", end)):
                items = [{"instance_id": i, "correct": c, "agreed": c} for i, c in zip(ids, correct, strict=True)]
                evaluations.record(board, run_id, phase, "test", items, sessions=0 if phase == "start" else 6,
                                   context_sessions=0)  # fmt: skip
    out = tmp_path / "report"
    code, _markdown, err = pxp(capsys, "report", "--db", db_path, "--column", "DRUG=E", "--out", out)
    assert code == 0, err
    for name in ("curves", "performance"):
        with Image.open(out / f"{name}.png") as image:
            assert image.width >= 1200
            assert len(image.convert("RGB").getcolors(1 << 20) or ()) > 8  # drawn, not blank
        svg = (out / f"{name}.svg").read_text(encoding="utf-8")
        assert "<svg" in svg and "DRUG" in svg  # the column's name, as text
        assert (out / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    assert "1-way h" in (out / "curves.svg").read_text(encoding="utf-8")
    assert "](performance.png)" in (out / "report.md").read_text(encoding="utf-8")
