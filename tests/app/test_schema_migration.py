"""Schema 3: the expert's name in its own column. A schema-2 file (made by the code before it, see
fixtures/README.md) is migrated forward by writers, read as it is by read-only readers, and merged."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import digest, offline_run, pxp
from pxp_tui.blackboard import Blackboard, BlackboardError, review, schema
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig, parse_human
from pxp_tui.runs.create import create_run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackboard-v2.db.gz"


@pytest.fixture
def v2_file(tmp_path: Path) -> Path:
    """The schema-2 blackboard: run 1 by the proxy (done, 2 sessions), run 2 by the live expert "ana" (created)."""
    path = tmp_path / "old.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def sql(path: Path, query: str) -> list[tuple]:
    """Rows read with plain sqlite3, as another program sees the file."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute(query).fetchall()


def columns(path: Path, table: str) -> list[str]:
    return [row[1] for row in sql(path, f"PRAGMA table_info({table})")]


def test_the_fixture_is_a_schema_2_file_with_the_old_human_column(v2_file: Path) -> None:
    assert sql(v2_file, "PRAGMA user_version") == [(2,)]
    assert "human" in columns(v2_file, "runs") and "expert" not in columns(v2_file, "runs")
    assert sql(v2_file, "SELECT id, human, human_kind FROM runs") == [(1, "proxy", "proxy"), (2, "ana", "live")]


def test_a_writer_migrates_a_schema_2_file_keeping_every_row(v2_file: Path) -> None:
    before = {table: sql(v2_file, f"SELECT COUNT(*) FROM {table}")[0][0] for table in ("data", "messages", "context")}
    uids = sql(v2_file, "SELECT uid FROM runs ORDER BY id")
    with Blackboard.open(v2_file) as board:
        proxy, live = board.run(1), board.run(2)
    assert sql(v2_file, "PRAGMA user_version") == [(schema.SCHEMA_VERSION,)]
    assert "human" not in columns(v2_file, "runs") and "expert" in columns(v2_file, "runs")
    assert (proxy.config.human_kind, proxy.config.expert, proxy.human, proxy.status) == (HumanKind.PROXY, None, "proxy", "done")
    assert (live.config.human_kind, live.config.expert, live.human, live.status) == (HumanKind.LIVE, "ana", "ana", "created")
    assert {table: sql(v2_file, f"SELECT COUNT(*) FROM {table}")[0][0] for table in before} == before
    assert sql(v2_file, "SELECT uid FROM runs ORDER BY id") == uids
    assert sql(v2_file, "PRAGMA integrity_check") == [("ok",)] and sql(v2_file, "PRAGMA foreign_key_check") == []
    unique = [row for row in sql(v2_file, "PRAGMA index_list(runs)") if row[2]]
    assert [sql(v2_file, f"PRAGMA index_info({row[1]})")[0][2] for row in unique] == ["uid"]  # still one run per uid
    # the views show who answered: the expert's name, else the kind
    view = sql(v2_file, "SELECT run_id, human, human_kind, expert, sessions FROM run_intelligibility ORDER BY run_id")
    assert view == [(1, "proxy", "proxy", None, 2), (2, "ana", "live", "ana", 0)]


def test_a_migrated_file_takes_new_runs_and_shows_the_expert_in_metrics_and_export(v2_file: Path, tmp_path: Path, capsys) -> None:
    offline_run(capsys, v2_file, "--limit", "1")
    code, out, _ = pxp(capsys, "metrics", "--db", v2_file, "--json")
    assert code == 0
    assert [(r["run_id"], r["human"], r["human_kind"], r["expert"]) for r in json.loads(out)] == [
        (1, "proxy", "proxy", None),
        (2, "ana", "live", "ana"),
        (3, "proxy", "proxy", None),
    ]
    code, _, err = pxp(capsys, "export", "--db", v2_file, "--format", "json", "--out", tmp_path / "out", "--table", "runs")
    assert code == 0, err
    exported = json.loads((tmp_path / "out" / "runs.json").read_text())
    assert [(r["human_kind"], r["expert"]) for r in exported] == [("proxy", None), ("live", "ana"), ("proxy", None)]
    code, out, _ = pxp(capsys, "report", "--db", v2_file, "--by", "expert", "--format", "csv")
    assert code == 0 and "DRUG ana" in out and "DRUG proxy" in out


def test_a_read_only_reader_reads_a_schema_2_file_as_it_is(v2_file: Path) -> None:
    before = digest(v2_file)
    with Blackboard.open(v2_file, create=False, readonly=True) as board:
        assert board.schema_version == 2
        assert [(s.run.config.human_kind, s.run.config.expert, s.run.human) for s in review.runs(board)] == [
            (HumanKind.PROXY, None, "proxy"),
            (HumanKind.LIVE, "ana", "ana"),
        ]
        replay = review.replay(board, review.sessions(board, 1).rows[0].session_id)
        assert replay.run.human == "proxy" and replay.messages
    assert digest(v2_file) == before  # not migrated, not touched
    assert sql(v2_file, "PRAGMA user_version") == [(2,)]


def test_a_read_only_reader_refuses_a_file_older_than_it_reads(v2_file: Path) -> None:
    with sqlite3.connect(v2_file) as conn:
        conn.execute("PRAGMA user_version = 1")
    with pytest.raises(BlackboardError, match=r"older pxp-tui \(schema 1\).*upgrade it"):
        Blackboard.open(v2_file, create=False, readonly=True)


def test_pxp_merge_copies_a_schema_2_file_into_a_current_one(v2_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "merged.db"
    offline_run(capsys, out, "--limit", "1")
    before = digest(v2_file)
    code, printed, err = pxp(capsys, "merge", out, v2_file)
    assert code == 0, err
    assert "2 run(s) added" in printed
    assert digest(v2_file) == before  # an input is only read
    with Blackboard.open(out, create=False, readonly=True) as board:
        runs = board.runs()
        assert [(r.config.human_kind, r.config.expert, r.status) for r in runs] == [
            (HumanKind.PROXY, None, "done"),
            (HumanKind.PROXY, None, "done"),
            (HumanKind.LIVE, "ana", "created"),
        ]
        assert review.runs_row(board, 2).counts.sessions == 2  # the proxy's sessions came along
    assert sql(out, "SELECT human, expert FROM run_intelligibility ORDER BY run_id") == [
        ("proxy", None),
        ("proxy", None),
        ("ana", "ana"),
    ]


def test_a_failed_migration_leaves_the_file_as_it_was(v2_file: Path, monkeypatch) -> None:
    def half_done(db) -> None:
        db.execute("ALTER TABLE runs ADD COLUMN expert TEXT")
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setitem(schema.MIGRATIONS, 2, half_done)
    with pytest.raises(BlackboardError, match="disk is full"):
        Blackboard.open(v2_file)
    assert sql(v2_file, "PRAGMA user_version") == [(2,)]
    assert "expert" not in columns(v2_file, "runs")
    assert sql(v2_file, "SELECT COUNT(*) FROM run_intelligibility") == [(2,)]  # its views are still there


@pytest.mark.parametrize(
    ("written", "kind", "expert"),
    [
        ("proxy", HumanKind.PROXY, None),
        ("alice", HumanKind.LIVE, "alice"),
        ("live:proxy", HumanKind.LIVE, "proxy"),
        ("live: Ana Lee ", HumanKind.LIVE, "Ana Lee"),
    ],
)
def test_the_human_option_names_a_kind_or_an_expert(written: str, kind: HumanKind, expert: str | None) -> None:
    assert parse_human(written) == (kind, expert)


def test_an_expert_called_proxy_is_a_live_expert_not_the_proxy(db_path: Path, capsys) -> None:
    with Blackboard.open(db_path) as board:
        run_id = create_run(board, RunConfig(human_kind=HumanKind.LIVE, expert="proxy", limit=1))
        run = board.run(run_id)
    assert (run.config.human_kind, run.config.expert, run.human) == (HumanKind.LIVE, "proxy", "proxy")
    offline_run(capsys, db_path, "--limit", "1")
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--by", "expert", "--format", "csv")
    assert code == 0
    assert sorted({line.split(",")[0] for line in out.splitlines()[1:]}) == ["DRUG proxy (live)", "DRUG proxy (proxy)"]
    code, _, err = pxp(capsys, "run", "--headless", "--human", "live:proxy", "--db", db_path)
    assert code == 2 and "answers in the app" in err
