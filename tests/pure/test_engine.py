"""The INTERACT loop: scheduling, stopping, committing, resuming, context carry-over."""

from __future__ import annotations

import pytest

from pxp_harness.scripted import ScriptedAgent, split_script
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.engine import AgentError, ProtocolViolationError, RunProgress, RunSpec, interact
from pxp_tui.protocol import Sender, Tag


def setup_run(board: Blackboard, count: int) -> tuple[int, list]:
    from pxp_tui.tasks.base import DatasetRow

    rows = [DatasetRow(f"k{i}", "train", "", "y", "e") for i in range(count)]
    board.add_dataset("d", "drug", rows)
    ids = board.instance_ids("d")
    run_id = board.create_run(
        RunConfig(dataset="d", model="script"),
        ids,
    )
    return run_id, board.instances(ids)


def scripted_pair(sessions: list[list[str]]) -> tuple[ScriptedAgent, ScriptedAgent]:
    machine_scripts, human_scripts = zip(*(split_script(s) for s in sessions), strict=True)
    return ScriptedAgent(machine_scripts), ScriptedAgent(human_scripts)


def tags_of(board: Blackboard) -> list[list[tuple[str, int, str]]]:
    out: dict[int, list] = {}
    for row in board.db.query("SELECT session_id, j, sender, tag FROM messages ORDER BY session_id, j"):
        out.setdefault(row["session_id"], []).append((row["sender"], row["j"], row["tag"]))
    return list(out.values())


async def test_sessions_follow_the_schedule_and_stop_rule() -> None:
    sessions = [
        ["INIT", "RATIFY", "RATIFY"],
        ["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"],
        ["INIT", "REFUTE", "REFUTE", "REJECT"],
        # the human ratified at j=2, then refuted: the machine's RATIFY at j=5 does not stop (latest,
        # not ever); the human's RATIFY at j=6 does
        ["INIT", "RATIFY", "REFUTE", "REFUTE", "RATIFY", "RATIFY"],
    ]
    board = Blackboard.memory()
    run_id, instances = setup_run(board, len(sessions))
    machine, human = scripted_pair(sessions)
    await interact(RunSpec(run_id, n=10, k=3), instances, machine, human, board)
    recorded = tags_of(board)
    assert [[t for _, _, t in s] for s in recorded] == sessions
    for session in recorded:
        assert [j for _, j, _ in session] == list(range(1, len(session) + 1))
        assert all(sender == ("machine" if j % 2 else "human") for sender, j, _ in session)
    stops = [r[0] for r in board.db.execute("SELECT stop_reason FROM data ORDER BY ord")]
    assert stops == ["ratified", "ratified", "rejected", "ratified"]
    assert board.run(run_id).status == "done"


async def test_the_bound_cuts_a_session() -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    machine, human = scripted_pair([["INIT"] + ["REFUTE"] * 20])
    await interact(RunSpec(run_id, n=6, k=3), instances, machine, human, board)
    assert len(tags_of(board)[0]) == 6
    assert board.db.execute("SELECT stop_reason, n_messages FROM data").fetchone() == ("bound", 6)


@pytest.mark.parametrize("bad", [["INIT", "INIT"], ["INIT", "REJECT"]])
async def test_an_agent_breaking_the_protocol_is_stopped(bad: list[str]) -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    machine, human = scripted_pair([bad])
    with pytest.raises(ProtocolViolationError):
        await interact(RunSpec(run_id, n=10, k=3), instances, machine, human, board)
    assert len(tags_of(board)[0]) == 1  # the bad message was not recorded
    assert board.run(run_id).status == "paused"


async def test_each_message_is_committed_before_the_next_agent_is_asked(tmp_path) -> None:
    path = tmp_path / "b.db"
    board = Blackboard.open(path)
    run_id, instances = setup_run(board, 2)
    seen: list[tuple[int, int]] = []

    def look(turn) -> None:
        # a second connection sees every earlier message of the session, committed
        with Blackboard.open(path, create=False) as other:
            count = other.db.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", [turn.session_id]).fetchone()[0]
        seen.append((turn.j, count))

    sessions = [["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"]] * 2
    machine, human = scripted_pair(sessions)
    machine.on_turn = human.on_turn = look
    await interact(RunSpec(run_id), instances, machine, human, board)
    assert seen and all(count == j - 1 for j, count in seen)


async def test_resume_after_a_failure_continues_at_the_next_message() -> None:
    sessions = [["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"]] * 3
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 3)
    machine, human = scripted_pair(sessions)
    machine.fail_at.add((1, 3))  # the machine fails at message 3 of the second session
    with pytest.raises(AgentError):
        await interact(RunSpec(run_id), instances, machine, human, board)
    run = board.run(run_id)
    assert run.status == "paused" and "scripted failure" in (run.error or "")
    progress = board.progress(run_id, instances)
    assert len(progress.done) == 1 and len(progress.open_messages) == 2
    await interact(RunSpec(run_id), instances, machine, human, board, progress=progress)
    recorded = tags_of(board)
    assert [[t for _, _, t in s] for s in recorded] == sessions  # no duplicate, no gap
    assert board.run(run_id).status == "done"


@pytest.mark.parametrize(("policy", "expected"), [("all", [0, 1, 2, 3]), ("none", [0, 0, 0, 0]), ("last:2", [0, 1, 2, 2])])
async def test_context_policy_selects_carried_sessions(policy: str, expected: list[int]) -> None:
    sessions = [["INIT", "RATIFY", "RATIFY"]] * 4
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 4)
    machine, human = scripted_pair(sessions)
    await interact(RunSpec(run_id, context=policy), instances, machine, human, board)
    firsts = [t for t in machine.turns if t.j == 1]
    assert [len(t.prior) for t in firsts] == expected
    if policy == "last:2":
        assert [r.order for r in firsts[3].prior] == [1, 2]


async def test_gate_can_drop_a_session_from_the_context() -> None:
    sessions = [["INIT", "RATIFY", "RATIFY"]] * 3
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 3)
    machine, human = scripted_pair(sessions)

    async def keep_even(record, prior) -> bool:
        return record.order % 2 == 0

    await interact(RunSpec(run_id), instances, machine, human, board, gate=keep_even)
    firsts = [t for t in machine.turns if t.j == 1]
    assert [[r.order for r in t.prior] for t in firsts] == [[], [0], [0]]
    kept = [r[0] for r in board.db.execute("SELECT context_kept FROM data ORDER BY ord")]
    assert kept == [1, 0, 1]
    progress = board.progress(run_id, instances)
    assert progress.kept == {r.session_id for r in progress.done if r.order % 2 == 0}


async def test_context_rows_name_the_message_and_the_carried_sessions() -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 2)
    machine, human = scripted_pair([["INIT", "RATIFY", "RATIFY"]] * 2)
    await interact(RunSpec(run_id), instances, machine, human, board)
    import json

    rows = [json.loads(r[0]) for r in board.db.execute("SELECT context FROM context ORDER BY session_id, j")]
    assert len(rows) == 6
    assert rows[0]["prior"]["sessions"] == 0 and rows[3]["prior"]["sessions"] == 1
    # the message's text is its row of messages (same session and j), never copied into C
    assert rows[1]["entry"] == {"role": "user", "sender": "human", "tag": "RATIFY", "instance": instances[0].id}


def test_progress_of_a_fresh_run_is_empty() -> None:
    assert RunProgress().next_order == 0
    assert Sender.MACHINE.other is Sender.HUMAN and Tag("REVISE") is Tag.REVISE
