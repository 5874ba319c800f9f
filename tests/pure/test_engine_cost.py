"""What one recorded message costs, counted where this machine's speed cannot move the count.

A timing on two cores shared by a suite hides a regression in its noise; these counts do not. A run of agents
that answer at once (so that all the work is the engine's and the blackboard's), as ``pxp run`` drives it
(each write on the loop's thread), is counted twice over: the SQL statements SQLite runs per recorded message
(sqlite3's trace callback: the statements of the blackboard's triggers count too) and the Python function
calls per message (cProfile, in every thread). Each is pinned at its value with a small margin: a change that
adds work to a message fails here, saying both counts; one that removes work lowers the pins.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import pstats
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.engine import Reply, RunSpec, Turn, interact
from pxp_tui.engine.writes import at_once
from pxp_tui.protocol import Tag
from pxp_tui.tasks.base import DatasetRow

SESSIONS = 30  # of three messages each: INIT, RATIFY, RATIFY
#: SQL statements per recorded message (12.94): BEGIN, the message, its context entry, the session's progress, COMMIT,
#: and the statements SQLite runs for the triggers on messages (the firsts, the rounds, the drafts); a third of a
#: session's opening (its row, committed unsynced) and of its end (the drafts' trigger, the final distribution's read)
STATEMENTS = 13.0
#: Python function calls per recorded message (cProfile's count: 77.6 on Python 3.10, 78.8 on 3.11, 78.6 on 3.12, 77.8
#: on 3.13; 83.0 on the oldest supported release of each dependency): the engine's turn (the protocol's checks, the
#: stop rule, the context entry) and the write
CALLS = 80.0
#: how far above its pin a count may go (a statement more per message is 8% more)
MARGIN = 0.05


class Instant:
    """An agent with no work of its own: the machine opens, the human ratifies, the machine ratifies."""

    async def respond(self, turn: Turn) -> Reply:
        return Reply(Tag.INIT if turn.j == 1 else Tag.RATIFY, "CCO.CC(=O)O", "explanation " * 20, {})


def drive(board: Blackboard, sessions: int) -> int:
    """A run of ``sessions`` instant sessions on ``board``, as ``pxp run`` writes them; its messages."""
    name = f"instant-{len(board.run_ids()) + 1}"
    board.add_dataset(name, "drug", [DatasetRow("x", "train", "C", "C", "e")])
    (instance,) = board.instance_ids(name)
    run_id = board.create_run(RunConfig(dataset=name, model="instant"), [instance] * sessions)
    instances = board.instances([instance]) * sessions
    asyncio.run(interact(RunSpec(run_id, context="all"), instances, Instant(), Instant(), board, store=at_once))
    return int(board.db.execute("SELECT SUM(n_messages) FROM data WHERE run_id = ?", [run_id]).fetchone()[0])


@contextmanager
def calls_counted() -> Iterator[Callable[[], int]]:
    """Python function calls made in the block, in its thread and the threads it starts (before Python 3.12 cProfile
    sees only the thread that enables it: each thread the block starts gets a profiler of its own). A thread started
    meanwhile by another (one an earlier test of this process left running) is not the block's work: not counted."""
    profilers = [cProfile.Profile()]
    per_thread = sys.version_info < (3, 12)
    block, ours, start_thread = threading.get_ident(), set(), threading.Thread.start

    def started_here(thread: threading.Thread) -> None:
        if threading.get_ident() == block:
            ours.add(thread)
        start_thread(thread)

    def start(*_: object) -> None:
        sys.setprofile(None)
        if threading.current_thread() in ours:
            profiler = cProfile.Profile()
            profilers.append(profiler)
            profiler.enable()

    if per_thread:
        threading.Thread.start = started_here  # type: ignore[method-assign]
        threading.setprofile(start)
    profilers[0].enable()
    try:
        yield lambda: sum(pstats.Stats(profiler).total_calls for profiler in profilers)  # type: ignore[attr-defined]
    finally:
        profilers[0].disable()
        if per_thread:
            threading.setprofile(None)  # type: ignore[arg-type]
            threading.Thread.start = start_thread  # type: ignore[method-assign]
        for profiler in profilers[1:]:
            profiler.disable()


@contextmanager
def no_collection() -> Iterator[None]:
    """The block runs with the garbage collector stopped, what earlier tests left collected before it: the count is
    the message's own work, not the finalizers of whatever the collector happens to free meanwhile (which depends on
    what ran before in the process and on the collector's thresholds, which the app changes)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cost(board: Blackboard, sessions: int = SESSIONS) -> tuple[float, float]:
    """(SQL statements, Python calls) per recorded message of runs of ``sessions`` instant sessions (one run counted
    each way, so that neither count holds the other's own work)."""
    statements = [0]

    def traced(_sql: str) -> None:
        statements[0] += 1

    board.db.conn.set_trace_callback(traced)
    try:
        with no_collection():
            traced_messages = drive(board, sessions)
    finally:
        board.db.conn.set_trace_callback(None)
    with no_collection(), calls_counted() as calls:
        messages = drive(board, sessions)
    return statements[0] / traced_messages, calls() / messages


def check(statements: float, calls: float) -> None:
    """Fail, with both counts and their pins, when either is over its pin by more than the margin."""
    said = (
        f"a recorded message costs {statements:.2f} SQL statements (pinned at {STATEMENTS}) and {calls:.1f} Python "
        f"calls (pinned at {CALLS}), {MARGIN:.0%} allowed over each: find the added work (tests/pure/test_engine_cost.py "
        "says how they are counted), or pin the new counts"
    )
    assert statements <= STATEMENTS * (1 + MARGIN) and calls <= CALLS * (1 + MARGIN), said


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Blackboard]:
    """A blackboard file (WAL, synchronous FULL), warmed by a short run: what is made once per process (each
    statement's text, SQLite's prepared statements) is not a message's cost."""
    with Blackboard.open(tmp_path / "sessions.db") as opened:
        drive(opened, 2)
        yield opened


def test_a_recorded_message_costs_no_more_statements_and_calls_than_pinned(board: Blackboard) -> None:
    statements, calls = cost(board)
    check(statements, calls)


def test_a_statement_more_per_message_fails_the_pin_saying_both_counts(board: Blackboard, monkeypatch) -> None:
    """The guard is not one that cannot fail: one SELECT more with every message is caught."""
    record = Blackboard.record

    def with_a_statement_more(self: Blackboard, *args: object) -> None:
        self.db.execute("SELECT 1").fetchall()
        record(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Blackboard, "record", with_a_statement_more)
    statements, calls = cost(board)
    with pytest.raises(AssertionError) as failed:
        check(statements, calls)
    said = str(failed.value)
    assert f"{statements:.2f} SQL statements (pinned at {STATEMENTS})" in said and f"{calls:.1f} Python calls" in said


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="from Python 3.12 cProfile sees every thread at once")
def test_threads_another_thread_starts_meanwhile_are_not_counted_and_the_block_s_own_are() -> None:
    """What an earlier test left running (a loop's executor starting threads) is not the message's work; a thread the
    measured code starts is."""

    def work() -> None:
        for _ in range(200):
            len("x")

    inside, five, stop = threading.Event(), threading.Event(), threading.Event()

    def stranger() -> None:  # starts threads that call functions, five of them while the block runs
        started = 0
        while not stop.is_set():
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
            started += inside.is_set()
            if started >= 5:
                five.set()

    running = threading.Thread(target=stranger)
    running.start()
    try:
        with calls_counted() as beside:
            inside.set()
            assert five.wait(60), "the stranger started no thread"
    finally:
        stop.set()
        running.join()
    with calls_counted() as own:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    assert beside() < 200, f"{beside()} calls counted: the stranger's threads among them"
    assert own() > 200  # the thread it started, counted
