"""The human proxy (controlled experiments) answers with the dataset's reference and never changes it, so it never sends
REVISE (DESIGN.md section 1; the papers: "there is no possibility of the human-agent in RAD sending a REVISE tag"): the
proxy as a run builds it, over many sessions against a machine whose answers change at random."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from pxp_tui.agents.computed import decide
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import Reply, RunSpec, Turn, interact
from pxp_tui.runs.humans import build_human
from pxp_tui.runs.seats import Seat, build_machine
from pxp_tui.tasks import get_task


class ChangingMachine:
    """A machine whose fresh answer each turn is, at random, one of the dataset's answers (its own case's or another's),
    tagged by the AGENT procedure with the task's MATCH and the run's checker, as the machine's tags are."""

    def __init__(self, task, checker, answers: list[tuple[str, str]], seed: int) -> None:
        self.task, self.checker, self.answers, self.rng = task, checker, answers, random.Random(seed)

    async def respond(self, turn: Turn) -> Reply:
        own = (turn.instance.reference_prediction, turn.instance.reference_explanation)
        fresh = own if self.rng.random() < 0.3 else self.rng.choice(self.answers)
        decision = await decide(turn, fresh, self.task.match, self.checker.agree)
        return Reply(decision.tag, decision.prediction, decision.explanation)


@pytest.mark.parametrize("task_name", ["rad", "drug"])
async def test_the_proxy_never_revises_over_many_sessions(task_name: str, db_path: Path) -> None:
    task = get_task(task_name)
    config = RunConfig(task=task_name, dataset="demo", checker="offline", human_kind=HumanKind.PROXY, n=10, k=3)
    with Blackboard.open(db_path) as board:
        board.add_dataset("demo", task_name, task.demo_rows(), source="bundled demo")
        ids = board.instance_ids("demo")
        run_id = board.create_run(config, ids)
        instances = board.instances(ids)
        machine, checker = build_machine(task, config)
        proxy = build_human(HumanKind.PROXY, Seat(board.run(run_id), task, machine, checker))
        answers = [(i.reference_prediction, i.reference_explanation) for i in instances]
        await interact(RunSpec(run_id, n=10, k=3), instances, ChangingMachine(task, checker, answers, seed=3), proxy, board)
    with sqlite3.connect(db_path) as con:
        sessions = con.execute("SELECT COUNT(*) FROM data WHERE stop_reason IS NOT NULL").fetchone()[0]
        sent = Counter(tag for (tag,) in con.execute("SELECT tag FROM messages WHERE sender = 'human'"))
        machine_sent = Counter(tag for (tag,) in con.execute("SELECT tag FROM messages WHERE sender = 'machine'"))
    assert sessions == len(ids) >= 20
    assert sent["REVISE"] == 0
    # the proxy answered every way it may: it was tested, not idle
    assert all(sent[tag] > 0 for tag in ("RATIFY", "REFUTE", "REJECT")), sent
    assert machine_sent["REVISE"] > 0, machine_sent  # against a machine that did change its answers
