"""Schema 6: each run's EVINCE settings, CRIT per round, raw KL and cross entropy. A schema-5 file (written by the
code before it, see fixtures/README.md) is read as it is by read-only readers, migrated forward by writers (its
runs measured and stopped as they ran), merged into a current file, and takes new runs."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard, schema
from pxp_tui.blackboard.merge import merge
from pxp_tui.protocol.evince import OLD_TOLERANCE, PLATEAU, RoundInformation, summarise
from pxp_tui.tasks.rad.labels import LABELS

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackboard-v5.db.gz"


@pytest.fixture
def v5_file(tmp_path: Path) -> Path:
    """Run 1: two offline RAD machines, --stop evince, 2 sessions of 6 messages (3 rounds each); run 2: DRUG, the proxy."""
    path = tmp_path / "v5.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def sql(path: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def distributions(path: Path, session_id: int) -> dict[int, dict[str, float]]:
    return {
        r["j"]: json.loads(r["distribution"])
        for r in sql(path, "SELECT j, distribution FROM messages WHERE session_id = ?", (session_id,))
    }


def test_the_fixture_is_a_schema_5_file(v5_file: Path) -> None:
    assert sql(v5_file, "PRAGMA user_version")[0][0] == 5
    assert "kl_machine_human_raw" not in [r[1] for r in sql(v5_file, "PRAGMA table_info(rounds)")]
    assert [tuple(r) for r in sql(v5_file, "SELECT id, task, stop FROM runs")] == [(1, "rad", "evince"), (2, "drug", "pxp")]
    assert sql(v5_file, "SELECT COUNT(*) FROM rounds")[0][0] == 6


def test_a_read_only_reader_reads_its_runs_as_they_ran(v5_file: Path) -> None:
    with Blackboard.open(v5_file, create=False, readonly=True) as board:
        rad, drug = board.run(1), board.run(2)
    assert (rad.config.evince_rule, rad.config.stop_tolerance, rad.config.ground_metric, rad.label_order) == (
        PLATEAU,
        OLD_TOLERANCE,
        "ordered",
        LABELS,
    )
    assert (drug.config.ground_metric, drug.label_order, drug.config.aggregation) == ("discrete", None, "weighted")
    assert sql(v5_file, "PRAGMA user_version")[0][0] == 5  # untouched


def test_a_writer_migrates_it_keeping_every_row_and_measuring_the_rounds_as_they_were(v5_file: Path) -> None:
    before = {t: sql(v5_file, f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("data", "messages", "context", "rounds")}
    wd_before = [r[0] for r in sql(v5_file, "SELECT wasserstein FROM rounds ORDER BY session_id, round")]
    with Blackboard.open(v5_file) as board:
        assert board.schema_version == schema.SCHEMA_VERSION >= 6
        rad = board.run(1)
    assert (rad.config.evince_rule, rad.config.stop_tolerance, rad.config.smoothing, rad.label_order) == (
        PLATEAU,
        OLD_TOLERANCE,
        0.01,
        LABELS,
    )
    assert {t: sql(v5_file, f"SELECT COUNT(*) FROM {t}")[0][0] for t in before} == before
    assert sql(v5_file, "PRAGMA integrity_check")[0][0] == "ok" and not sql(v5_file, "PRAGMA foreign_key_check")
    rows = sql(v5_file, "SELECT * FROM round_information ORDER BY session_id, round")
    assert [r["wasserstein"] for r in rows] == pytest.approx(wd_before)  # ordered over RAD's five, as measured then
    for r in rows:  # every round, raw measures included, as Python measures the stored distributions
        d = distributions(v5_file, r["session_id"])
        python = RoundInformation.measure(r["round"], d[2 * r["round"] - 1], d[2 * r["round"]], LABELS)
        for name, value in python.as_dict().items():
            assert (r[name] is None) if value == float("inf") else r[name] == pytest.approx(value, abs=1e-9), name
        assert r["wasserstein_percent"] == pytest.approx(100 * r["wasserstein"] / 4) and r["crit"] is None
    for s in sql(v5_file, "SELECT * FROM session_information"):
        measured = [
            RoundInformation.measure(
                r["round"], *(distributions(v5_file, s["session_id"])[j] for j in (2 * r["round"] - 1, 2 * r["round"])), LABELS
            )
            for r in rows
            if r["session_id"] == s["session_id"]
        ]
        assert s["rule_at"] == summarise(measured, OLD_TOLERANCE).plateau_at  # its run's rule and tolerance
        assert s["evince_rule"] == PLATEAU
    # the evaluation views read it too: the RAD labels against each distribution
    assert sql(v5_file, "SELECT COUNT(*) FROM debate_ranks WHERE which = 'final'")[0][0] == 2


def test_a_schema_5_file_merges_into_a_current_one(tmp_path: Path, v5_file: Path) -> None:
    target = tmp_path / "target.db"
    with Blackboard.open(target) as board:
        merge(board, [v5_file])
        rad = next(r for r in board.runs() if r.config.task == "rad")
    assert (rad.config.evince_rule, rad.config.stop_tolerance, rad.label_order) == (PLATEAU, OLD_TOLERANCE, LABELS)
    original = [r[0] for r in sql(v5_file, "SELECT wasserstein FROM rounds ORDER BY session_id, round")]
    assert [r[0] for r in sql(target, "SELECT wasserstein FROM rounds ORDER BY session_id, round")] == pytest.approx(original)


def test_a_migrated_file_takes_a_new_debate_with_the_current_defaults(capsys, v5_file: Path) -> None:
    code, _, err = pxp(
        capsys, "run", "--headless", "--quiet", "--db", v5_file, "--task", "diagnosis", "--human", "model:offline",
        "--top-k", "3", "--contentiousness", "0.9", "--stop", "evince", "--limit", "2",
    )  # fmt: skip
    assert code == 0, err
    (run,) = sql(v5_file, "SELECT * FROM runs WHERE id = 3")
    assert (run["evince_rule"], run["stop_tolerance"], run["ground_metric"], run["label_order"], run["aggregation"]) == (
        "fig1",
        0.01,
        "discrete",
        None,
        "entopps",
    )
    judged = sql(v5_file, "SELECT crit FROM round_information WHERE run_id = 3")
    assert judged and all(r["crit"] is not None for r in judged)  # CRIT each round, for Figure 1's loop
