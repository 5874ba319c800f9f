"""The SQL of the blackboard (firsts kept by triggers, the views, the curves) equals the protocol's
definitions, and a schema-1 file is migrated with the same numbers."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pxp_tui.blackboard import Blackboard
from pxp_tui.blackboard.curves import run_curves
from pxp_tui.blackboard.metrics import counts_of, run_rows
from pxp_tui.blackboard.schema import CLASSES
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag, curve, run_counts, session_flags
from pxp_tui.tasks.base import DatasetRow

TAGS = [Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT]
session = st.lists(st.sampled_from(TAGS), min_size=0, max_size=9).map(lambda rest: [Tag.INIT, *rest])


def with_senders(tags: list[Tag]) -> list[tuple[Sender, Tag]]:
    return [(Sender.MACHINE if j % 2 == 0 else Sender.HUMAN, t) for j, t in enumerate(tags)]


def record(board: Blackboard, runs: list[list[list[Tag]]], *, unfinished_last: bool = False) -> list[int]:
    """Write runs of sessions (any tag sequences: the definitions do not need a valid exchange)."""
    if not board.has_dataset("d"):
        board.add_dataset("d", "drug", [DatasetRow("k", "train", "", "y", "e")])
    ids = []
    for sessions in runs:
        run_id = board.create_run(
            RunConfig(dataset="d", model="m"),
            [1] * len(sessions),
        )
        ids.append(run_id)
        for order, tags in enumerate(sessions):
            sid = board.start_session(run_id, 1, order)
            for j, tag in enumerate(tags, start=1):
                last = j == len(tags) and not (unfinished_last and order == len(sessions) - 1)
                message = Message(sid, j, Sender.MACHINE if j % 2 else Sender.HUMAN, tag, "y", "e")
                board.record(message, {}, StopReason.BOUND if last else None)
    return ids


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(session, min_size=0, max_size=6), min_size=1, max_size=3))
def test_views_and_curves_equal_the_protocol(runs: list[list[list[Tag]]]) -> None:
    board = Blackboard.memory()
    run_ids = record(board, runs)
    rows = run_rows(board)
    curves = run_curves(board, run_ids)
    for run_id, sessions, row in zip(run_ids, runs, rows, strict=True):
        assert counts_of(row) == run_counts(with_senders(s) for s in sessions)
        assert curves[run_id] == curve([with_senders(s) for s in sessions], 10)
    flags = list(board.db.query("SELECT * FROM session_intelligibility ORDER BY session_id"))
    expected = [session_flags(with_senders(s)) for sessions in runs for s in sessions]
    assert [{c: bool(f[c]) for c in CLASSES} for f in flags] == [vars(e) for e in expected]


def test_unfinished_sessions_are_left_out_of_counts_and_curves() -> None:
    board = Blackboard.memory()
    sessions = [[Tag.INIT, Tag.RATIFY, Tag.RATIFY], [Tag.INIT, Tag.REVISE]]
    (run_id,) = record(board, [sessions], unfinished_last=True)
    assert counts_of(run_rows(board)[0]).sessions == 1
    assert run_curves(board, [run_id])[run_id][-1] == run_counts([with_senders(sessions[0])])


def test_deleting_a_message_takes_it_out_of_the_counts() -> None:
    board = Blackboard.memory()
    record(board, [[[Tag.INIT, Tag.REFUTE, Tag.REJECT]]])
    assert counts_of(run_rows(board)[0]).one_way_machine == 0
    board.db.execute("DELETE FROM messages WHERE j = 3")
    board.db.execute(
        "INSERT INTO messages (session_id, j, sender, receiver, tag, created_at) "
        "VALUES (1, 3, 'machine', 'human', 'REVISE', 'now')"
    )
    assert counts_of(run_rows(board)[0]).ultra_strong_machine == 1
    assert run_curves(board, [1])[1][2].ultra_strong_machine == 1


def test_a_schema_1_file_is_migrated_with_the_same_counts(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sessions = [[Tag.INIT, Tag.REFUTE, Tag.REVISE, Tag.RATIFY, Tag.RATIFY], [Tag.INIT, Tag.RATIFY, Tag.REJECT]]
    with Blackboard.open(path) as board:
        record(board, [sessions])
        _downgrade_to_schema_1(board)
    with Blackboard.open(path, create=False) as board:
        assert board.db.execute("PRAGMA user_version").fetchone()[0] >= 2
        assert counts_of(run_rows(board)[0]) == run_counts(with_senders(s) for s in sessions)
        assert run_curves(board, [1])[1] == curve([with_senders(s) for s in sessions], 10)
        record(board, [[[Tag.INIT, Tag.RATIFY, Tag.RATIFY]]])  # the triggers work after migration
        assert counts_of(run_rows(board)[1]).strong_human == 1


def _downgrade_to_schema_1(board: Blackboard) -> None:
    """What a file written before the firsts looks like: no such columns, triggers or new views."""
    from pxp_tui.blackboard import firsts, rounds, schema

    db = board.db
    # the later views and schema 5's trigger read runs, which the rebuild below renames (SQLite checks them)
    db.execute(f"DROP TRIGGER {rounds.TRIGGER}")
    for name in schema.VIEWS:
        db.execute(f"DROP VIEW IF EXISTS {name}")
    for event in ("insert", "delete"):
        db.execute(f"DROP TRIGGER messages_firsts_{event}")
    for column in firsts.COLUMNS:
        db.execute(f"ALTER TABLE data DROP COLUMN {column}")
    db.execute("ALTER TABLE runs ADD COLUMN human TEXT")  # schema 3's expert was schema 1's human
    db.execute("UPDATE runs SET human = COALESCE(expert, human_kind)")
    db.table("runs").transform(drop={"expert"})
    db.execute("CREATE VIEW session_intelligibility AS SELECT session_id FROM data")
    db.execute("CREATE VIEW run_intelligibility AS SELECT id AS run_id FROM runs")
    db.execute("PRAGMA user_version = 1")
