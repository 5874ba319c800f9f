"""The blackboard file: opening, refusing foreign files, schema, views against the Python definitions."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import digest
from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.blackboard.metrics import counts_of, run_rows, session_tags
from pxp_tui.blackboard.schema import APPLICATION_ID, SCHEMA_VERSION
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag, run_counts, session_flags
from pxp_tui.runs.create import create_run
from pxp_tui.tasks.base import DatasetRow


def test_a_new_file_gets_the_schema_wal_and_version(db_path: Path) -> None:
    with Blackboard.open(db_path) as board:
        assert board.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert board.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert board.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert board.db.execute("PRAGMA busy_timeout").fetchone()[0] > 0  # each attempt waits; then it is asked again
        assert {"runs", "data", "messages", "context", "datasets", "instances", "images"} <= set(board.db.table_names())
        assert {"session_intelligibility", "run_intelligibility"} <= set(board.db.view_names())


def test_a_missing_file_is_not_created_when_only_reading(tmp_path: Path) -> None:
    with pytest.raises(BlackboardError, match="no blackboard"):
        Blackboard.open(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_a_file_that_is_not_sqlite_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 10)
    before = digest(path)
    with pytest.raises(BlackboardError, match="not a SQLite file"):
        Blackboard.open(path)
    assert digest(path) == before


def test_another_applications_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(BlackboardError, match="another application"):
        Blackboard.open(path)
    assert digest(path) == before


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    Blackboard.open(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(BlackboardError, match="newer pxp-tui"):
        Blackboard.open(db_path)


def test_a_duplicate_dataset_is_refused_without_writing(db_path: Path) -> None:
    with Blackboard.open(db_path) as board:
        board.add_dataset("d", "drug", [DatasetRow("a", "train", "CCO", "C.O", "e")])
        with pytest.raises(BlackboardError, match="already exists"):
            board.add_dataset("d", "drug", [DatasetRow("b", "train", "CCO", "C.O", "e")])
        assert board.db["instances"].count == 1


def random_session(rng: random.Random, n: int, k: int) -> list[Tag]:
    """Tags of a session that obeys the protocol's shape (INIT first, REJECT only after k, stops)."""
    tags = [Tag.INIT]
    latest = {Sender.MACHINE: Tag.INIT, Sender.HUMAN: None}
    for j in range(2, n + 1):
        choices = [Tag.RATIFY, Tag.REFUTE, Tag.REVISE] + ([Tag.REJECT] if j > k else [])
        tag = rng.choice(choices)
        tags.append(tag)
        latest[Sender.MACHINE if j % 2 else Sender.HUMAN] = tag
        if tag is Tag.REJECT or (latest[Sender.MACHINE] is Tag.RATIFY and latest[Sender.HUMAN] is Tag.RATIFY):
            break
    return tags


def fill(board: Blackboard, sessions: list[list[Tag]], *, unfinished: int = 0) -> int:
    board.add_dataset("d", "drug", [DatasetRow(f"k{i}", "train", "C", "C", "e") for i in range(len(sessions) + unfinished)])
    ids = board.instance_ids("d")
    run_id = board.create_run(
        RunConfig(dataset="d", model="m"),
        ids,
    )
    for order, tags in enumerate(sessions + [[Tag.INIT, Tag.RATIFY]] * unfinished):
        session_id = board.start_session(run_id, ids[order], order)
        finished = order < len(sessions)
        for j, tag in enumerate(tags, start=1):
            sender = Sender.MACHINE if j % 2 else Sender.HUMAN
            stop = StopReason.BOUND if finished and j == len(tags) else None
            board.record(Message(session_id, j, sender, tag, "y", "e"), {}, stop)
    return run_id


def test_views_agree_with_the_python_definitions_on_random_sessions() -> None:
    rng = random.Random(20261122)
    sessions = [random_session(rng, n=10, k=3) for _ in range(400)]
    board = Blackboard.memory()
    run_id = fill(board, sessions, unfinished=3)
    # per session
    python_flags = [
        session_flags([(Sender.MACHINE if j % 2 == 0 else Sender.HUMAN, t) for j, t in enumerate(s)]) for s in sessions
    ]
    rows = list(board.db.query("SELECT * FROM session_intelligibility WHERE finished ORDER BY ord"))
    assert len(rows) == len(sessions)
    for flags, row in zip(python_flags, rows, strict=True):
        assert {k: bool(row[k]) for k in vars(flags)} == vars(flags)
    # per run: unfinished sessions are not counted
    expected = run_counts(session_tags(board, run_id))
    assert expected.sessions == len(sessions)
    assert counts_of(run_rows(board, [run_id])[0]) == expected
    assert run_rows(board)[0]["p_two_way"] == round(expected.proportion("two_way"), 4)


def test_messages_carry_microsecond_timestamps_and_receivers() -> None:
    board = Blackboard.memory()
    fill(board, [[Tag.INIT, Tag.RATIFY, Tag.RATIFY]])
    rows = list(board.db.query("SELECT sender, receiver, created_at FROM messages ORDER BY j"))
    assert [(r["sender"], r["receiver"]) for r in rows] == [("machine", "human"), ("human", "machine"), ("machine", "human")]
    stamps = [datetime.fromisoformat(r["created_at"]) for r in rows]
    assert all(s.tzinfo is not None for s in stamps)
    assert all(len(r["created_at"].split(".")[1].split("+")[0]) == 6 for r in rows)
    assert stamps == sorted(stamps)


def test_a_message_cannot_be_recorded_twice() -> None:
    board = Blackboard.memory()
    fill(board, [[Tag.INIT, Tag.RATIFY, Tag.RATIFY]])
    with pytest.raises(sqlite3.IntegrityError):
        board.record(Message(1, 2, Sender.HUMAN, Tag.REFUTE, "y", "e"), {}, None)
    assert board.db["messages"].count == 3 and board.db["context"].count == 3


def test_a_paused_runs_error_is_stored_with_credentials_redacted(monkeypatch) -> None:
    secret = "sk-test-0123456789abcdefghij"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", secret)
    board = Blackboard.memory()
    run_id = create_run(board, RunConfig(limit=1))
    board.set_status(run_id, "paused", f"RuntimeError: request with key {secret} failed")
    error = board.run(run_id).error
    assert secret not in error and error == "RuntimeError: request with key [redacted] failed"


@pytest.mark.parametrize("name", ["run#1.db", "what?.db", "50%.db", "with space.db"])
def test_a_file_name_with_uri_characters_opens_read_only_as_itself(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with Blackboard.open(path) as board:
        run_id = create_run(board, RunConfig(limit=1))
    with Blackboard.open(path, create=False, readonly=True) as board:
        assert board.run_ids() == [run_id]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [name]
