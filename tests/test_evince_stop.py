"""``--stop``: EVINCE's rule in the engine (RunSpec.stop), with agents whose distributions are scripted."""

from __future__ import annotations

import pytest

from pxp_tui.blackboard import Blackboard
from pxp_tui.engine import Reply, RunSpec, Turn, interact
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
    ("rule", "reason", "messages"),
    [
        ("pxp", "ratified", 3),  # RATIFY/RATIFY at j = 3
        ("both", "ratified", 3),
        ("evince", "converged", 8),  # rounds 3 and 4 are equal: WD did not fall, NMI did not rise
    ],
)
async def test_the_stop_rules(rule: str, reason: str, messages: int) -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    spec = RunSpec(run_id, n=20, stop=rule, order=LABELS)
    await interact(spec, instances, Debater(True), Debater(False), board)
    (row,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    assert (row["stop_reason"], row["n_messages"]) == (reason, messages)


async def test_the_evince_rule_still_stops_at_the_bound() -> None:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    await interact(RunSpec(run_id, n=5, stop="evince", order=LABELS), instances, Debater(True), Debater(False), board)
    (row,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    assert (row["stop_reason"], row["n_messages"]) == ("bound", 5)
