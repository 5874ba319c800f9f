"""Nothing committed is ever lost, whoever else opens the file.

On POSIX, closing any descriptor of a file drops every lock its process holds on it. A read beside
the writer in the same process (the app reads on connections of its own) must not let a reader in
another process believe it is the last one, checkpoint and delete the WAL the writer still appends to.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness import crash_scenarios
from pxp_harness.app_helpers import expert_turn as app_turn
from pxp_harness.app_helpers import live_app, wait_for
from pxp_harness.outside import deleted_files, sqlite_count
from pxp_harness.terminal import PXP, Tmux, expert_turn, gone, needs_tmux
from pxp_tui.app.review.runs_screen import open_board
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run

DEMO = 23  # sessions in the bundled DRUG demo
HEADLESS_LIMIT = 6  # sessions of the headless crash scenarios' runs (benchmarks/crash_campaign.py: 12, many trials)
APP_LIMIT = 4  # sessions of the app's run (the campaign: 6)


#: files under watch by the audit hook (empty outside the test that sets it), and what opened them
_WATCHED: list[str] = []
_OPENED: list[str] = []
_HOOKED: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and isinstance(args[0], (str, bytes, os.PathLike)):
        name = os.fsdecode(args[0])
        if any(name.startswith(w) for w in _WATCHED) and not name.endswith(".lock"):
            _OPENED.append(name)


def sqlite_cli(db: Path, sql: str) -> str:
    """``sqlite3 DB SQL`` as the issue ran it (the SQLite shell; the Python module where it is missing)."""
    if shutil.which("sqlite3"):
        return subprocess.run(["sqlite3", str(db), sql], capture_output=True, text=True, check=True).stdout.strip()
    conn = sqlite3.connect(db)
    try:
        return "|".join(str(v) for v in conn.execute(sql).fetchone())
    finally:
        conn.close()


def test_a_read_beside_the_writer_keeps_its_commits_in_the_file(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    writer = Blackboard.open(db)
    try:
        create_run(writer, RunConfig(limit=1))
        # what the app does while its writer is open: the start screen's read, the review's connection
        with Blackboard.open(db, readonly=True) as reader:
            assert reader.run_ids() == [1]
        open_board(db).close()
        assert sqlite_count(db, "runs") == 1  # an outside reader opens and closes the file
        create_run(writer, RunConfig(limit=1))
        assert sqlite_count(db, "runs") == 2  # the writer's commit is in the file, not in a deleted WAL
        assert deleted_files(os.getpid(), db) == []
    finally:
        writer.close()


async def test_the_app_opens_the_blackboard_itself_once_and_keeps_it_open(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's open() (or os.open) of the file, its -wal or -shm while the app writes: the app's reads, the
    review opened from the app, a model switch's writes. Only the run locks' descriptor is the app's own: opened
    once, and kept while any connection of the app is open (closing it would drop SQLite's locks)."""
    monkeypatch.setenv("PXP_IMAGES", "none")
    if not _HOOKED:  # an audit hook stays for the rest of the session; it looks only while _WATCHED is set
        sys.addaudithook(_audit)
        _HOOKED.append(True)
    _WATCHED[:] = [str(db_path), str(db_path.resolve())]
    try:
        async with live_app(db_path) as (app, pilot, _):
            await app_turn(pilot, app, j=2)
            app.action_open_review()
            await wait_for(
                pilot, lambda: "run(s)" in " ".join(str(w.render()) for w in app.screen.query("#runs-status")), "the review"
            )
            await pilot.press("escape")
            await app_turn(pilot, app, j=2)
            await pilot.press("1", "ctrl+s")
            screen = await app_turn(pilot, app, j=2)
            assert screen.exchange.order == 1
    finally:
        _WATCHED.clear()
    assert [Path(name).resolve() for name in _OPENED] == [db_path.resolve()]  # the run locks' descriptor, once
    beside = [p.name for p in db_path.parent.iterdir() if not p.name.endswith(("-wal", "-shm"))]  # SQLite's own
    assert beside == [db_path.name]  # nothing of pxp's own beside it


@pytest.mark.slow
@needs_tmux
def test_six_turns_answered_beside_an_outside_reader_survive_kill_9(tmp_path: Path) -> None:
    """An outside reader beside a killed app: the app, `sqlite3` at the first turn, six turns answered, kill -9."""
    db = tmp_path / "live.db"
    tmux = Tmux(tmp_path)
    try:
        tmux.start("app", [str(PXP), "run", "--task", "drug", "--model", "offline", "--human", "expert", "--db", str(db)])
        expert_turn(tmux, "app", 1, DEMO)
        assert sqlite_cli(db, "select count(*) from messages") == "1"  # the machine's first message
        for session in range(1, 7):
            expert_turn(tmux, "app", session, DEMO)
            tmux.keys("app", "1", "C-s")
        expert_turn(tmux, "app", 7, DEMO)  # the sixth session's end and the seventh's first message are shown
        pid = tmux.pxp_pid("app")
        assert deleted_files(pid, db) == []
        os.kill(pid, signal.SIGKILL)
        assert gone(pid)
    finally:
        tmux.close()
    assert sqlite_cli(db, "select count(*) from messages where sender='human'") == "6"
    assert sqlite_cli(db, "select count(*) from data where stop_reason = 'ratified'") == "6"
    assert sqlite_cli(db, "select count(*) from messages m join data d using (session_id) where d.ord = 6") == "1"
    assert sqlite_cli(db, "pragma integrity_check") == "ok"


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> list[tuple]:
    """The messages of an uninterrupted headless run like the scenarios' (the offline machine is deterministic)."""
    return crash_scenarios.reference(tmp_path_factory.mktemp("reference"), HEADLESS_LIMIT, in_process=True)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "seed"), [("headless", 1), ("repeat", 3), ("app", 4)])
def test_kill_9_at_a_random_moment_beside_outside_readers_loses_nothing_shown(
    tmp_path: Path, scenario: str, seed: int, request: pytest.FixtureRequest
) -> None:
    """The real pxp (the app in tmux, or headless, or --repeat 3), outside readers (sqlite3, pxp metrics, pxp
    export, sqlite-utils, pxp review) at random moments, kill -9 at a random moment: every message shown or
    printed is in the file, the file is intact, --resume finishes every run with its planned sessions (the
    headless ones message for message as an uninterrupted run), and the writer never held a deleted file."""
    if scenario == "app":
        if shutil.which("tmux") is None or not PXP.exists():
            pytest.skip("needs tmux and the pxp command")
        trial = crash_scenarios.run_trial(scenario, tmp_path, seed, limit=APP_LIMIT)
    else:
        expected = request.getfixturevalue("uninterrupted")
        trial = crash_scenarios.run_trial(scenario, tmp_path, seed, limit=HEADLESS_LIMIT, expected=expected, in_process=True)
    assert trial.reads > 0, "no outside reader ran"
    assert trial.ok, trial
