"""REJECT (DESIGN.md section 1): the message just sent ends the session whoever sent it, and an agent may send it
from message k + 1 on, never at k or before, for every k."""

from __future__ import annotations

import pytest

from pxp_harness.scripted import ScriptedAgent, split_script
from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.engine import ProtocolViolationError, RunSpec, interact
from pxp_tui.protocol import StopReason, Tag, allowed_tags, decide_tag, stop_reason
from pxp_tui.tasks.base import DatasetRow

LATEST = [Tag.RATIFY, Tag.REFUTE, Tag.REVISE]


async def record(sessions: list[list[str]], *, n: int = 10, k: int = 3) -> Blackboard:
    """A run of these sessions (tags from j = 1, as scripts for both agents), recorded on a new blackboard."""
    board = Blackboard.memory()
    board.add_dataset("d", "drug", [DatasetRow(f"k{i}", "train", "", "y", "e") for i in range(len(sessions))])
    ids = board.instance_ids("d")
    run_id = board.create_run(RunConfig(dataset="d", model="script", n=n, k=k), ids)
    machine_scripts, human_scripts = zip(*(split_script(s) for s in sessions), strict=True)
    await interact(
        RunSpec(run_id, n=n, k=k), board.instances(ids), ScriptedAgent(machine_scripts), ScriptedAgent(human_scripts), board
    )
    return board


def stored(board: Blackboard) -> list[tuple[list[str], str]]:
    """Each session's tags in order, and its stop reason, as the blackboard holds them."""
    sessions = board.db.execute("SELECT session_id, stop_reason FROM data ORDER BY ord").fetchall()
    return [
        ([t for (t,) in board.db.execute("SELECT tag FROM messages WHERE session_id = ? ORDER BY j", [s])], reason)
        for s, reason in sessions
    ]


@pytest.mark.parametrize("latest_human", [*LATEST, None])
def test_a_machine_reject_stops_the_session_whatever_the_human_sent_last(latest_human: Tag | None) -> None:
    for j in (5, 7, 9):
        assert stop_reason(j, 10, Tag.REJECT, Tag.REJECT, latest_human) is StopReason.REJECTED


@pytest.mark.parametrize("latest_machine", [*LATEST, Tag.INIT])
def test_a_human_reject_stops_the_session_whatever_the_machine_sent_last(latest_machine: Tag) -> None:
    for j in (4, 6, 8):
        assert stop_reason(j, 10, Tag.REJECT, latest_machine, Tag.REJECT) is StopReason.REJECTED


def test_a_reject_at_the_bound_is_a_rejection_not_the_bound() -> None:
    assert stop_reason(10, 10, Tag.REJECT, Tag.REFUTE, Tag.REJECT) is StopReason.REJECTED
    assert stop_reason(9, 9, Tag.REJECT, Tag.REJECT, Tag.RATIFY) is StopReason.REJECTED


async def test_the_machines_reject_ends_its_session_and_the_run_goes_on_to_the_next() -> None:
    sessions = [
        ["INIT", "REFUTE", "REFUTE", "REFUTE", "REJECT"],  # the machine rejects at j = 5 > k = 3
        ["INIT", "RATIFY", "REFUTE", "RATIFY", "REJECT"],  # ... even right after the human ratified
        ["INIT", "REFUTE", "REFUTE", "REFUTE", "REFUTE", "REJECT"],  # the human rejects at j = 6
        ["INIT", "RATIFY", "RATIFY"],
    ]
    board = await record(sessions)
    assert stored(board) == [(tags, reason) for tags, reason in zip(sessions, ["rejected"] * 3 + ["ratified"], strict=True)]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_reject_is_allowed_from_message_k_plus_1_on(k: int) -> None:
    for j in range(2, 13):
        assert (Tag.REJECT in allowed_tags(j, k)) is (j > k), (j, k)
        for is_changed in (True, False):
            fallback = Tag.REVISE if is_changed else Tag.REFUTE
            assert decide_tag(j, k, False, False, is_changed) is (Tag.REJECT if j > k else fallback), (j, k)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
async def test_an_agent_rejecting_at_k_is_stopped_and_at_k_plus_1_ends_the_session(k: int) -> None:
    """At j = k the agent of that turn may not reject (the message is refused, the run paused); at k + 1 the other
    agent may, and the session ends there."""
    before = ["INIT", *["REFUTE"] * (k - 2)]  # messages 1 .. k - 1
    with pytest.raises(ProtocolViolationError, match=f"sent REJECT at message {k}"):
        await record([[*before, "REJECT"]], k=k)
    board = await record([[*before, "REFUTE", "REJECT", "REFUTE"]], k=k)
    assert stored(board) == [([*before, "REFUTE", "REJECT"], "rejected")]
