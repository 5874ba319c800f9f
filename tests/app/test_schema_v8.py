"""Schema 8: a reply without a readable distribution has none, EVINCE's stops say what the rule found, the compared
MI is a run setting, DRUG's references are compared as canonical SMILES. A schema-7 file (written by the code before
it, see fixtures/README.md: every EVINCE stop stored as ``converged``, a one-hot made up for each reply without a
distribution) is read as it is by read-only readers, migrated forward by writers and merged into a current file."""

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

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackboard-v7.db.gz"


@pytest.fixture
def v7_file(tmp_path: Path) -> Path:
    """Run 1: two offline DIAGNOSIS readers, --top-k 3 --stop evince, 3 sessions of 2 rounds, all ``converged``;
    run 2: two offline DRUG readers, 2 sessions at the bound."""
    path = tmp_path / "v7.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def sql(path: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def reasons(path: Path) -> list[tuple[int, str]]:
    return [(r[0], r[1]) for r in sql(path, "SELECT session_id, stop_reason FROM data ORDER BY session_id")]


#: the first run's sessions as that code measured them (WD of rounds 1 and 2, a one-hot in round 1), and the stop
#: reason the rule found at round 2 with the tolerance 0.01: WD 0.455 -> 0.449 (flat, apart), 0.47 -> 0.54 and
#: 0.05 -> 0.75 (rose)
FOUND = [(1, "stalled"), (2, "diverged"), (3, "diverged"), (4, "bound"), (5, "bound")]


def test_the_fixture_is_a_schema_7_file_that_stored_every_stop_as_converged(v7_file: Path) -> None:
    assert sql(v7_file, "PRAGMA user_version")[0][0] == 7
    assert reasons(v7_file)[:3] == [(1, "converged"), (2, "converged"), (3, "converged")]
    wd = {(r[0], r[1]): r[2] for r in sql(v7_file, "SELECT session_id, round, wasserstein FROM rounds")}
    assert wd[2, 2] > wd[2, 1] + 0.01 and wd[3, 2] > wd[3, 1] + 0.01  # converged on a rising WD
    made_up = sql(v7_file, "SELECT session_id, j, distribution FROM messages WHERE distribution_fallback = 1")
    assert [(r[0], r[1]) for r in made_up] == [(1, 2), (2, 2), (3, 2)]
    assert all(max(json.loads(r[2]).values()) == 1.0 for r in made_up)  # one-hots on the prediction


def test_a_read_only_reader_reads_it_as_it_is(v7_file: Path) -> None:
    with Blackboard.open(v7_file, create=False, readonly=True) as board:
        run = board.run(1)
        assert board.schema_version == 7
    assert run.config.evince_mi == "nmi"  # as it ran
    assert sql(v7_file, "PRAGMA user_version")[0][0] == 7 and reasons(v7_file)[0] == (1, "converged")


def test_a_writer_migrates_it_giving_each_stop_what_its_rule_found_and_leaving_out_the_made_up_rounds(v7_file: Path) -> None:
    before = {t: sql(v7_file, f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("data", "messages", "context", "instances")}
    with Blackboard.open(v7_file) as board:
        assert board.schema_version == schema.SCHEMA_VERSION == 8
        assert board.run(1).config.evince_mi == "nmi"
    assert {t: sql(v7_file, f"SELECT COUNT(*) FROM {t}")[0][0] for t in before} == before  # every row kept
    assert sql(v7_file, "PRAGMA integrity_check")[0][0] == "ok" and not sql(v7_file, "PRAGMA foreign_key_check")
    assert reasons(v7_file) == FOUND  # never "converged" on a rising WD
    # the made-up one-hots are measured nowhere: round 1 of each debate of run 1 is left out, and listed as such
    assert [tuple(r) for r in sql(v7_file, "SELECT session_id, round FROM rounds WHERE session_id <= 3")] == [
        (1, 2),
        (2, 2),
        (3, 2),
    ]
    left_out = sql(v7_file, "SELECT session_id, round, machine_stated, human_stated FROM unstated_rounds ORDER BY 1")
    assert [tuple(r) for r in left_out] == [(1, 1, 1, 0), (2, 1, 1, 0), (3, 1, 1, 0)]
    summaries = {r["session_id"]: r for r in sql(v7_file, "SELECT * FROM session_information")}
    assert [summaries[s]["rounds_left_out"] for s in (1, 2, 3)] == [1, 1, 1]
    assert summaries[4]["rounds_left_out"] == 0 and summaries[4]["evince_mi"] == "nmi"
    # the debate evaluation reads DRUG's references as canonical SMILES
    keys = sql(
        v7_file,
        "SELECT i.reference_prediction, i.reference_key FROM instances i JOIN data d ON d.instance_id = i.id WHERE d.run_id = 2",
    )
    assert keys and all(r["reference_key"] for r in keys)


def test_it_merges_into_a_current_file_with_the_same_stop_reasons(tmp_path: Path, v7_file: Path) -> None:
    target = tmp_path / "target.db"
    with Blackboard.open(target) as board:
        merge(board, [v7_file])
    assert reasons(target) == FOUND
    assert sql(v7_file, "PRAGMA user_version")[0][0] == 7  # the input is only read
    assert [r[0] for r in sql(target, "SELECT round FROM unstated_rounds ORDER BY session_id")] == [1, 1, 1]
    assert sql(target, "SELECT COUNT(*) FROM instances WHERE reference_key IS NOT NULL")[0][0] >= 2
    # merged again after the target's own copy was migrated: still what the rule found
    migrated = tmp_path / "migrated.db"
    shutil.copy(v7_file, migrated)
    with Blackboard.open(migrated):
        pass
    with Blackboard.open(migrated) as board:
        merge(board, [v7_file])
    assert reasons(migrated) == FOUND


def test_the_report_of_a_migrated_file_says_how_its_sessions_ended_and_what_was_left_out(capsys, v7_file: Path) -> None:
    with Blackboard.open(v7_file):
        pass
    code, out, err = pxp(capsys, "report", "--db", v7_file, "--runs", "1")
    assert code == 0, err
    assert "(ended: diverged 2, stalled 1)" in out
    assert "3 round(s) in 3 session(s) were left out: a reply stated no readable distribution (other 3)" in out
