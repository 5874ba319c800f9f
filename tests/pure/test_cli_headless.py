"""``pxp run --headless`` and ``pxp metrics`` as a user runs them."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from pxp_tui.protocol import Sender, Tag, run_counts

from ..conftest import pxp

# one worker runs the module under pytest-xdist, so that the demo run below is made once, not once per worker
pytestmark = pytest.mark.xdist_group("cli_headless")


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    result = pxp("run", "--headless", "--task", "drug", "--model", "offline", "--human", "proxy", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db, result.stdout


def sessions_of(db: Path) -> list[list[tuple[int, str, str, str]]]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT m.session_id, m.j, m.sender, m.receiver, m.tag FROM messages m JOIN data d USING (session_id) ORDER BY d.ord, m.j"
    ).fetchall()
    conn.close()
    out: dict[int, list] = {}
    for session_id, j, sender, receiver, tag in rows:
        out.setdefault(session_id, []).append((j, sender, receiver, tag))
    return list(out.values())


@pytest.mark.slow
def test_a_headless_offline_run_prints_progress_and_the_table(demo_run: tuple[Path, str]) -> None:
    db, out = demo_run
    lines = out.splitlines()
    progress = [line for line in lines if line.startswith("session ")]
    assert len(progress) == len(sessions_of(db)) >= 20
    assert "INIT_m" in progress[0]
    assert "Total sessions" in out and "2-way intelligible sessions" in out


@pytest.mark.slow
def test_every_session_obeys_the_protocol(demo_run: tuple[Path, str]) -> None:
    db, _ = demo_run
    n, k = 10, 3
    for session in sessions_of(db):
        assert [j for j, *_ in session] == list(range(1, len(session) + 1))  # contiguous from 1
        assert len(session) <= n
        assert session[0][3] == "INIT" and all(tag != "INIT" for *_, tag in session[1:])
        for j, sender, receiver, tag in session:
            assert sender == ("machine" if j % 2 else "human") and receiver != sender
            assert tag != "REJECT" or j > k
            assert not (sender == "human" and tag == "REVISE")  # the proxy never revises
        # nothing after a stop: only the last message may end the session
        latest: dict[str, str] = {}
        for index, (_j, sender, _, tag) in enumerate(session):
            latest[sender] = tag
            stopped = tag == "REJECT" or (latest.get("machine") == "RATIFY" and latest.get("human") == "RATIFY")
            assert not stopped or index == len(session) - 1


@pytest.mark.slow
def test_metrics_json_equals_counts_recomputed_from_messages(demo_run: tuple[Path, str]) -> None:
    db, _ = demo_run
    result = pxp("metrics", "--db", str(db), "--json")
    assert result.returncode == 0, result.stderr
    (reported,) = json.loads(result.stdout)
    tags = [[(Sender(s), Tag(t)) for _, s, _, t in session] for session in sessions_of(db)]
    expected = dataclasses.asdict(run_counts(tags))
    assert {k: reported[k] for k in expected} == expected
    assert reported["run_id"] == 1


@pytest.mark.slow
def test_metrics_table_has_the_papers_rows(demo_run: tuple[Path, str]) -> None:
    db, _ = demo_run
    result = pxp("metrics", "--db", str(db))
    assert result.returncode == 0
    for label in ("Total sessions", "1-way intelligible", "2-way intelligible", "Strong intelligible", "Ultra-strong"):
        assert label in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--headless", "--n", "0"], "not at least 1"),
        (["run", "--headless", "--task", "chess"], "invalid choice"),
        (["run", "--headless", "--context", "some"], "context policy"),
        (["metrics", "--run", "x"], "not a whole number"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = pxp(*args, "--db", str(tmp_path / "x.db")) if args[0] != "frobnicate" else pxp(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_missing_database_is_an_error_not_a_new_file(tmp_path: Path) -> None:
    result = pxp("metrics", "--db", str(tmp_path / "nope.db"))
    assert result.returncode == 2 and "no blackboard" in result.stderr
    assert not (tmp_path / "nope.db").exists()


@pytest.mark.parametrize("kind", ["text", "sqlite"])
def test_a_foreign_file_is_refused_and_left_unchanged(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "foreign.db"
    if kind == "text":
        path.write_text("hello\n")
    else:
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for args in (["metrics"], ["run", "--headless", "--limit", "1"]):
        result = pxp(*args, "--db", str(path))
        assert result.returncode == 2 and "not a pxp blackboard" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.slow
def test_an_unknown_run_is_an_error(demo_run: tuple[Path, str]) -> None:
    db, _ = demo_run
    result = pxp("metrics", "--db", str(db), "--run", "99")
    assert result.returncode == 2 and "no run 99" in result.stderr
    result = pxp("run", "--headless", "--resume", "99", "--db", str(db))
    assert result.returncode == 2 and "no run 99" in result.stderr


@pytest.mark.slow
def test_resuming_a_finished_run_says_so(demo_run: tuple[Path, str]) -> None:
    db, _ = demo_run
    result = pxp("run", "--headless", "--resume", "1", "--db", str(db))
    assert result.returncode == 2 and "already finished" in result.stderr
