"""``--stop``: EVINCE's rule in the engine (RunSpec.stop), with agents whose distributions are scripted."""

from __future__ import annotations

import json

import pytest

from pxp_tui.blackboard import Blackboard
from pxp_tui.engine import Message, Reply, RunSpec, Turn, interact
from pxp_tui.protocol import Tag
from pxp_tui.tasks.rad.labels import LABELS

from .test_engine import setup_run

#: the machine's distributions by round: it moves towards the other agent for two rounds, then stays
MACHINE = [
    {"Atelectasis": 0.7, "Pneumonia": 0.3},
    {"Atelectasis": 0.5, "Pneumonia": 0.5},
    {"Atelectasis": 0.4, "Pneumonia": 0.6},
]
HUMAN = {"Atelectasis": 0.2, "Pneumonia": 0.8}


class Debater:
    """Always the same prediction (so both ratify from j = 3), a scripted distribution per round."""

    def __init__(self, machine: bool):
        self.machine = machine

    async def respond(self, turn: Turn) -> Reply:
        tag = Tag.INIT if turn.j == 1 else Tag.RATIFY
        round_ = (turn.j + 1) // 2
        dist = MACHINE[min(round_, len(MACHINE)) - 1] if self.machine else HUMAN
        return Reply(tag, "Pneumonia", "e", {"distribution": {x: dist.get(x, 0.0) for x in LABELS}})


@pytest.mark.parametrize(
    ("rule", "evince_rule", "reason", "messages"),
    [
        ("pxp", "fig1", "ratified", 3),  # RATIFY/RATIFY at j = 3
        ("both", "plateau", "ratified", 3),
        ("evince", "plateau", "stalled", 8),  # rounds 3 and 4 are equal (WD 0.2): WD did not fall, NMI did not rise
        ("evince", "fig1", "bound", 20),  # Figure 1's loop goes on while nothing gets worse: to the bound
    ],
)
async def test_the_stop_rules(rule: str, evince_rule: str, reason: str, messages: int) -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    spec = RunSpec(run_id, n=20, stop=rule, order=LABELS, evince_rule=evince_rule)
    await interact(spec, instances, Debater(True), Debater(False), board)
    (row,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    assert (row["stop_reason"], row["n_messages"]) == (reason, messages)


class FallingJudge:
    """CRIT of each round: 8, 8, 7, ... (the round's score falls from round 3), and the rounds it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    async def __call__(self, instance, machine: Message, other: Message) -> dict:
        self.seen.append((machine.j, other.j))
        score = 8.0 if other.j <= 4 else 7.0
        return {"crit": json.dumps({"method": "test", "machine": score, "human": score, "score": score})}


async def test_figure_1_stops_when_crit_falls_and_each_round_keeps_its_verdict() -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    judge = FallingJudge()
    spec = RunSpec(run_id, n=20, stop="evince", order=LABELS, evince_rule="fig1")
    await interact(spec, instances, Debater(True), Debater(False), board, judge=judge)
    (row,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    # rounds 1-2 at 8, round 3 at 7: CRIT fell (by 0.1 on CRIT / 10, more than the tolerance) after round 3
    assert (row["stop_reason"], row["n_messages"]) == ("converged", 6)
    assert judge.seen == [(1, 2), (3, 4), (5, 6)]  # each round judged once, before its closing message was stored
    crit = [r["crit"] for r in board.db.query("SELECT crit FROM round_information ORDER BY round")]
    assert crit == [8.0, 8.0, 7.0]
    assert [r["crit"] is None for r in board.db.query("SELECT crit FROM messages ORDER BY j")] == [True, False] * 3


async def test_the_evince_rule_still_stops_at_the_bound() -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    await interact(RunSpec(run_id, n=5, stop="evince", order=LABELS), instances, Debater(True), Debater(False), board)
    (row,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    assert (row["stop_reason"], row["n_messages"]) == ("bound", 5)
