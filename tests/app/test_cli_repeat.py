"""``pxp run --headless --repeat R``: R runs of one configuration as one experiment, concurrently."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run
from pxp_tui.runs.repeat import execute_all

CONFIG_COLUMNS = ("task", "dataset", "model", "checker", "human_kind", "expert", "n", "k", "context", "seed", "split", "plan")


def test_repeat_stores_r_runs_of_one_configuration_under_one_experiment(db_path: Path, capsys) -> None:
    code, out, err = pxp(capsys, "run", "--headless", "--db", db_path, "--repeat", "3", "--limit", "2", "--seed", "5")
    assert code == 0, err
    with Blackboard.open(db_path, create=False, readonly=True) as board:
        runs = list(board.db.query("SELECT * FROM runs ORDER BY id"))
    assert len(runs) == 3 and len({r["uid"] for r in runs}) == 3
    assert len({r["experiment"] for r in runs}) == 1 and runs[0]["experiment"]
    assert len({tuple(r[c] for c in CONFIG_COLUMNS) for r in runs}) == 1
    assert {r["status"] for r in runs} == {"done"}
    assert f"{runs[0]['experiment']} (3 runs)" in out  # the experiment's median column
    assert all(f"run {r['id']}  session" in out for r in runs)  # progress lines say which run


def test_experiment_name_is_kept_and_reused(db_path: Path, capsys) -> None:
    for _ in range(2):
        pxp(capsys, "run", "--headless", "--db", db_path, "--repeat", "2", "--limit", "1", "--experiment", "pilot", "--quiet")
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--experiment", "pilot", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("DRUG pilot (4 runs),1 2 3 4,")


def test_resume_with_repeat_is_refused_before_any_file_is_made(tmp_path: Path, capsys) -> None:
    db = tmp_path / "new.db"
    code, _, err = pxp(capsys, "run", "--headless", "--db", db, "--resume", "1", "--repeat", "2")
    assert code == 2 and "leave out --repeat" in err and not db.exists()


async def test_one_failing_run_does_not_stop_the_others(db_path: Path) -> None:
    with Blackboard.open(db_path) as board:
        ids = [create_run(board, RunConfig(limit=2)) for _ in range(3)]
        board.set_status(ids[1], "done")  # a run that cannot be executed again
        outcome = await execute_all(board, ids)
        assert isinstance(outcome[ids[1]], BlackboardError)
        assert outcome[ids[0]] is None and outcome[ids[2]] is None
        assert board.db.execute("SELECT COUNT(*) FROM data WHERE ended_at IS NOT NULL").fetchone()[0] == 4


@pytest.mark.slow
def test_five_repetitions_are_driven_concurrently(db_path: Path, capsys, monkeypatch) -> None:
    """R runs proceed together (so that R runs take about the time of one when the model's latency
    dominates): every run has started a session before any run has finished its last one."""
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0.1")  # each run lasts seconds, one after another would not overlap
    code, _, err = pxp(capsys, "run", "--headless", "--db", db_path, "--repeat", "5", "--limit", "2", "--quiet")
    assert code == 0, err
    with Blackboard.open(db_path, create=False, readonly=True) as board:
        spans = board.db.execute(
            "SELECT run_id, MIN(started_at), MAX(ended_at), COUNT(ended_at) FROM data GROUP BY run_id"
        ).fetchall()
    assert len(spans) == 5 and all(finished == 2 for *_, finished in spans)
    last_start = max(started for _, started, _, _ in spans)  # ISO 8601 in UTC: ordered as text
    first_end = min(ended for _, _, ended, _ in spans)
    assert last_start < first_end, spans
