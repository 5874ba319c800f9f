"""``pxp report``: the papers' table by run, experiment or expert, curves, performance; CSV and PNG."""

from __future__ import annotations

import csv
import io
import json
import statistics
from pathlib import Path

import pytest
from PIL import Image

from pxp_harness.boards import EVERY_CLASS, scripted_run
from pxp_harness.cli_helpers import digest, offline_run, pxp
from pxp_tui.blackboard import Blackboard, evaluations
from pxp_tui.blackboard.schema import CLASSES


def table(out: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(out)))


def metrics_json(capsys, db: Path) -> list[dict]:
    code, out, _ = pxp(capsys, "metrics", "--db", db, "--json")
    assert code == 0
    return json.loads(out)


def test_report_prints_the_counts_of_metrics_json(db_path: Path, capsys) -> None:
    offline_run(capsys, db_path, "--limit", "5")
    offline_run(capsys, db_path, "--limit", "4", "--seed", "7")
    metrics = metrics_json(capsys, db_path)
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--format", "csv")
    assert code == 0
    rows = table(out)
    for run in metrics:
        mine = {r["measure"]: r for r in rows if r["runs"] == str(run["run_id"])}
        assert int(mine["sessions"]["median"]) == run["sessions"]
        for name in CLASSES:
            assert int(mine[name]["median"]) == run[name]
            assert float(mine[name]["proportion"]) == pytest.approx(run[f"p_{name}"], abs=1e-4)
    _code, markdown, _ = pxp(capsys, "report", "--db", db_path)
    line = next(line for line in markdown.splitlines() if line.startswith("| 2-way"))
    cells = [c.strip() for c in line.strip("|").split("|")][2:]
    assert cells == [f"{r['two_way']} ({r['p_two_way']:.2f})" for r in metrics]
    assert "Not evaluated" in markdown


async def every_experiment(db: Path) -> None:
    """Three repetitions of one experiment with different outcomes, and two experts' runs."""
    scripts = [tags for _, tags in EVERY_CLASS]
    with Blackboard.open(db) as board:
        for cut in (8, 6, 3):  # the experiment's runs differ in how many sessions they had
            await scripted_run(board, scripts[:cut], experiment="E")
        await scripted_run(board, scripts[:5], human="h1")
        await scripted_run(board, scripts[2:], human="h2")


async def test_an_experiment_column_is_the_median_with_min_and_max(db_path: Path, capsys) -> None:
    await every_experiment(db_path)
    runs = [m for m in metrics_json(capsys, db_path) if m["run_id"] <= 3]
    _code, out, _ = pxp(capsys, "report", "--db", db_path, "--experiment", "E", "--format", "csv")
    rows = {r["measure"]: r for r in table(out)}
    assert {r["column"] for r in table(out)} == {"DRUG E (3 runs)"}
    for name in ("sessions", *CLASSES):
        values = [r[name] for r in runs]
        got = rows[name]
        assert (float(got["median"]), int(got["min"]), int(got["max"])) == (statistics.median(values), min(values), max(values))


async def test_two_experts_sit_side_by_side(db_path: Path, capsys) -> None:
    await every_experiment(db_path)
    _code, out, _ = pxp(capsys, "report", "--db", db_path, "--runs", "4", "5", "--by", "expert")
    header = next(line for line in out.splitlines() if line.startswith("| Count"))
    assert [c.strip() for c in header.strip("|").split("|")][2:] == ["DRUG h1", "DRUG h2"]


async def test_out_writes_markdown_csv_and_the_figure(db_path: Path, tmp_path: Path, capsys) -> None:
    await every_experiment(db_path)
    out = tmp_path / "report"
    code, _printed, _err = pxp(capsys, "report", "--db", db_path, "--by", "experiment", "--out", out)
    assert code == 0
    # h1 and h2 answered the same instances: their agreement too
    assert {p.name for p in out.iterdir()} == {
        "report.md", "intelligibility.csv", "curves.csv", "curves.png", "curves.svg", "curves.pdf", "agreement.csv"
    }  # fmt: skip
    with Image.open(out / "curves.png") as image:
        assert image.format == "PNG" and image.width >= 1200  # three columns: E, h1's run, h2's run
        assert len(image.convert("RGB").getcolors(1 << 20)) > 8  # drawn, not blank
    curves = table((out / "curves.csv").read_text())
    metrics = {m["run_id"]: m for m in metrics_json(capsys, db_path)}
    last = {r["measure"]: int(r["median"]) for r in curves if r["column"] == "DRUG run 4 h1" and r["j"] == "6"}
    assert last == {k: metrics[4][k] for k in ("sessions", *CLASSES)}  # the curve ends at the table's counts
    assert "![intelligibility versus message bound](curves.png)" in (out / "report.md").read_text()


async def test_machine_performance_is_reported_when_evaluated(db_path: Path, capsys) -> None:
    await every_experiment(db_path)
    with Blackboard.open(db_path) as board:
        ids = [r[0] for r in board.db.execute("SELECT id FROM instances LIMIT 5")]
        for phase, correct in (("start", [True, False, False, False, False]), ("end", [True, True, True, False, False])):
            items = [{"instance_id": i, "correct": c, "agreed": c} for i, c in zip(ids, correct, strict=True)]
            evaluations.record(board, 4, phase, "test", items, sessions=0 if phase == "start" else 6, context_sessions=0)
    _code, out, _ = pxp(capsys, "report", "--db", db_path, "--runs", "4")
    section = out.split("## Machine performance", 1)[1]
    assert "`evaluations`" in section and "| 4 | start | test | 0 | 0 | 5 | 0.2 |" in section
    assert "| 4 | end | test | 6 | 0 | 5 | 0.6 |" in section


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--runs", "99"], "no run 99"),
        (["--experiment", "nope"], "no experiment 'nope'"),
        (["--runs", "1", "--experiment", "E"], "not allowed with argument"),
        (["--by", "colour"], "invalid choice"),
    ],
)
async def test_bad_input_is_one_line_exit_2_and_nothing_changes(db_path: Path, capsys, argv, message) -> None:
    await every_experiment(db_path)
    before = digest(db_path)
    code, _out, err = pxp(capsys, "report", "--db", db_path, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert digest(db_path) == before
