"""Many writers, one file: every write waits its turn, none fails because another writes, nothing is lost.

Other writers here are real: another process holding SQLite's write lock (as a ``sqlite3`` shell with a
transaction open would), threads of one process sharing the writer's connection, an import beside a reader.
The slow tests run a dozen real ``pxp`` processes and the live app on one file (tests/real/test_many_writers_live.py).
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pxp_harness.big_files import png, rad_csv
from pxp_harness.outside import env
from pxp_harness.waiting import async_poll, poll
from pxp_tui.blackboard import Blackboard, WriteError, access, dataset_import, transactions
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run
from pxp_tui.tasks import get_task

#: another program holding the write lock: it takes it, says "held", keeps it ``argv[2]`` seconds (or, with
#: "stdin", until a line comes), commits and says "committed"
HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE datasets SET description = 'held' WHERE name = 'demo-drug'")
print("held", flush=True)
if sys.argv[2] == "stdin":
    sys.stdin.readline()
else:
    time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
print("committed", flush=True)
sys.stdin.readline()
"""


def holder(db: Path, hold: str) -> subprocess.Popen:
    """Another process holding the file's write lock (see :data:`HOLDER`), once it has it."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), hold], env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def finish(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.communicate("\n\n", timeout=60)


def board_with_run(db: Path) -> None:
    with Blackboard.open(db) as board:
        create_run(board, RunConfig(limit=2))


def test_a_transaction_that_reads_then_writes_waits_its_turn_behind_another_writer(db_path: Path) -> None:
    """Issue's trace: BEGIN, a read, then a write failed at once with "database is locked" while another wrote."""
    board_with_run(db_path)
    outside = holder(db_path, "1.0")
    try:
        with Blackboard.open(db_path) as board, board.transaction():
            before = board.run_ids()  # a read: with a deferred BEGIN, the snapshot of the lock's time
            assert outside.stdout is not None and outside.stdout.readline().strip() == "committed"
            run_id = create_run(board, RunConfig(limit=2))  # then a write
    finally:
        finish(outside)
    assert (before, run_id) == ([1], 2)
    with Blackboard.open(db_path, readonly=True) as board:
        assert board.run_ids() == [1, 2]
        assert board.db.execute("SELECT description FROM datasets WHERE name = 'demo-drug'").fetchone() == ("held",)


def test_a_write_waits_past_the_busy_timeout_asking_again(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transactions, "ATTEMPT_MS", 50)  # SQLite's own wait in one attempt: a twentieth of the hold
    board_with_run(db_path)
    with Blackboard.open(db_path) as board:
        outside = holder(db_path, "1.0")
        try:
            board.update_run(1, {"experiment": "mine"})
        finally:
            finish(outside)
        assert board.run(1).config.experiment == "mine"
        assert max(board.writer.waits) > 0.1  # it waited beyond SQLite's timeout, and was let in


def test_a_write_that_waits_its_limit_fails_saying_so_and_changes_nothing(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_LOCK_WAIT", "0.3")
    board_with_run(db_path)
    outside = holder(db_path, "stdin")
    try:
        with Blackboard.open(db_path) as board, pytest.raises(sqlite3.OperationalError) as failed:
            board.update_run(1, {"experiment": "mine"})
    finally:
        finish(outside)
    why = access.describe_error(failed.value)
    assert why.startswith("another program holds the file locked (database is locked; pxp waited 0.")
    assert why.endswith(" s for it)")
    with Blackboard.open(db_path, readonly=True) as board:
        assert board.run(1).config.experiment is None


def test_threads_sharing_the_writer_never_see_or_join_an_unfinished_transaction(db_path: Path) -> None:
    """The app's UI loop and its threads share one connection: a read from another thread waits for the transaction
    open on it to end, and never reads what that transaction then rolls back."""
    board_with_run(db_path)
    with Blackboard.open(db_path) as board:
        counted: list[int] = []
        reader = threading.Thread(target=lambda: counted.append(board.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]))
        with pytest.raises(RuntimeError, match="given up"), board.transaction():
            board.db.execute("DELETE FROM runs WHERE id = 1")
            reader.start()
            poll(lambda: board.writer.waiting or not reader.is_alive(), "the writer blocked, or done", step=0.005)  # on the lock
            raise RuntimeError("given up")  # the transaction is rolled back
        reader.join(timeout=60)
        assert counted == [1]  # never the 0 of the deleted, then restored, run
        assert board.run_ids() == [1]


def test_a_large_import_writes_in_short_transactions_and_shows_nothing_until_done(tmp_path: Path, db_path: Path) -> None:
    board_with_run(db_path)
    csv = rad_csv(tmp_path / "xrays", 12, side=1000, noise=True)  # about 12 MB of pictures
    rows = get_task("rad").read_dataset(csv)
    seen: list[tuple[int, int, int]] = []

    def outside_view(stage: str, done: int, total: int) -> None:  # what another process reads meanwhile
        if stage == "storing" and done < total:
            conn = sqlite3.connect(db_path)
            seen.append(
                tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("datasets", "instances", "images"))
            )
            conn.close()

    with Blackboard.open(db_path) as board:
        begun: list[str] = []
        board.db.conn.set_trace_callback(lambda sql: begun.append(sql) if sql.startswith("BEGIN") else None)
        board.add_dataset("xrays", "rad", rows, progress=outside_view)
        board.db.conn.set_trace_callback(None)
        assert len(board.instance_ids("xrays")) == 12
    assert len(begun) >= 12 * 10**6 // dataset_import.CHUNK_BYTES  # pictures a chunk at a time, then the rest
    assert begun == ["BEGIN IMMEDIATE"] * len(begun)
    assert seen and all((datasets, instances) == (1, 23) for datasets, instances, _ in seen)  # the run's demo only
    assert any(images > 0 for _, _, images in seen)  # pictures were being written, unseen


def test_an_import_that_fails_after_storing_pictures_leaves_none_behind(
    tmp_path: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board_with_run(db_path)
    folder = tmp_path / "xrays"
    csv = rad_csv(folder, 10, side=1000, noise=True)
    rows = get_task("rad").read_dataset(csv)
    real = dataset_import._chunks

    def then_changed(rows, shas):  # the last picture changes on disk after its check, once some are stored
        for done, chunk in real(rows, shas):
            yield done, chunk
            png(folder / "case9.png", 32, 32, shade=1)

    monkeypatch.setattr(dataset_import, "_chunks", then_changed)
    with Blackboard.open(db_path) as board:
        with pytest.raises(ValueError, match=r"case9\.png changed during the import; nothing imported"):
            board.add_dataset("xrays", "rad", rows)
        assert board.db.execute("SELECT COUNT(*) FROM images").fetchone() == (0,)
        assert not board.has_dataset("xrays")


def test_a_write_refused_by_sqlite_during_an_import_names_the_file_and_imports_nothing(db_path: Path) -> None:
    board_with_run(db_path)
    rows = get_task("drug").demo_rows()
    with Blackboard.open(db_path) as board:
        board.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON instances BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises(WriteError, match="refused; nothing imported"):
            board.add_dataset("again", "drug", rows)
        assert not board.has_dataset("again")


def in_begin() -> bool:
    """Whether a thread of this process is waiting in SQLite for the write lock (in ``transactions.begin``)."""
    for frame in sys._current_frames().values():
        while frame is not None:
            if frame.f_code.co_name == "attempt" and frame.f_code.co_filename == transactions.__file__:
                return True
            frame = frame.f_back
    return False


async def test_the_engine_commits_off_the_loop_while_another_program_holds_the_file(db_path: Path) -> None:
    """The app's loop goes on (paints, reads keys) while a message waits its turn for the file."""
    from pxp_tui.runs.execute import execute

    board_with_run(db_path)
    with Blackboard.open(db_path) as board:
        outside = holder(db_path, "stdin")
        try:
            run = asyncio.ensure_future(execute(board, 1))
            # this loop turns while the engine's first write waits
            await async_poll(lambda: in_begin() or run.done(), "the engine's first write to wait for the lock", step=0.01)
            assert in_begin() and not run.done()
        finally:
            await asyncio.to_thread(finish, outside)
        await run
        assert board.run(1).status == "done"
