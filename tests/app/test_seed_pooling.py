"""Runs that differ only in ``--seed`` (the order of their instances) pool into one report column as repetitions, and
the report says so under the table."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.cli_helpers import offline_run, pxp

NOTE = "pools runs whose `--seed` differs"


def test_a_column_of_runs_with_different_seeds_says_so(capsys, db_path: Path) -> None:
    for seed in ("1", "2"):
        offline_run(capsys, db_path, "--experiment", "E", "--seed", seed, "--limit", "2")
    offline_run(capsys, db_path, "--experiment", "F", "--limit", "2")
    offline_run(capsys, db_path, "--experiment", "F", "--limit", "2")
    code, out, err = pxp(capsys, "report", "--db", db_path, "--by", "experiment")
    assert code == 0, err
    assert "Column DRUG E (2 runs) pools runs whose `--seed` differs (1, 2): their instances came in another order" in out
    assert out.count(NOTE) == 1  # F's runs share their order
