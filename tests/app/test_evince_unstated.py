"""A round in which a reply stated no readable distribution is left out of EVINCE: no measure, no stop on it, no
final distribution from it; never measured as a one-hot on the reply's prediction. Shown as such in the views, the
app's information table and bars, the report and ``pxp run``'s session lines."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import Debate, MachineAgent
from pxp_tui.app.session.widgets.information_plot import rounds_content
from pxp_tui.app.shared.distribution_bars import UNSTATED, bars_content
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.printing import SessionLines
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, Reply, RunSpec, Turn, interact
from pxp_tui.engine.interact import distributions
from pxp_tui.protocol import Tag
from pxp_tui.protocol.evince import combine, rounds_of
from pxp_tui.tasks import get_task

from ..pure.test_engine import setup_run

A, B = "Influenza", "Migraine"
#: the machine's distribution every round, and the other's by round; in round 2 one of them states none (its
#: prediction B); rounds 3 and 4 are alike. Measured as a one-hot on B, round 2 would jump (WD 0.5 or 0.6) and stop
#: the plateau rule
MACHINE = {A: 0.6, B: 0.4}
OTHER = {1: {A: 0.5, B: 0.5}, 2: {A: 0.5, B: 0.5}, 3: {A: 0.55, B: 0.45}, 4: {A: 0.55, B: 0.45}}
#: how a reply without a distribution is stored: by this pxp (none, flagged), and by an older one (a one-hot, flagged)
UNSTATED_FORMS = {
    "none": {"distribution_fallback": 1},
    "older one-hot": {"distribution": json.dumps({A: 0.0, B: 1.0}), "distribution_fallback": 1},
}


class Debater:
    """A scripted debater, the machine or the other, whose replies in ``silent`` rounds state no distribution."""

    def __init__(self, machine: bool, silent: tuple[int, ...] = (), unstated: dict | None = None) -> None:
        self.machine, self.silent, self.unstated = machine, silent, unstated or UNSTATED_FORMS["none"]

    async def respond(self, turn: Turn) -> Reply:
        tag = Tag.INIT if turn.j == 1 else Tag.REFUTE
        round_ = (turn.j + 1) // 2
        if round_ in self.silent:
            return Reply(tag, B, "e", dict(self.unstated))
        if self.machine:
            return Reply(tag, A, "e", {"distribution": MACHINE, "distribution_fallback": 0})
        return Reply(tag, A, "e", {"distribution": OTHER[min(round_, 4)], "distribution_fallback": 0})


class Judge:
    """Records the rounds it was asked to judge (CRIT of a round needs both distributions)."""

    def __init__(self) -> None:
        self.rounds: list[int] = []

    async def __call__(self, instance, machine: Message, other: Message) -> dict:
        self.rounds.append(other.j // 2)
        return {"crit": json.dumps({"method": "test", "machine": 5.0, "human": 5.0, "score": 5.0})}


def debate(form: str, silent: tuple[int, ...], n: int = 20, who: str = "other") -> tuple[Blackboard, Judge]:
    board = Blackboard.memory()
    run_id, instances = setup_run(board, 1)
    board.db.execute("UPDATE runs SET top_k = 2, stop = 'evince', evince_rule = 'plateau' WHERE id = ?", [run_id])
    judge = Judge()
    spec = RunSpec(run_id, n=n, stop="evince", evince_rule="plateau")
    machine = Debater(True, silent if who == "machine" else (), UNSTATED_FORMS[form])
    other = Debater(False, silent if who == "other" else (), UNSTATED_FORMS[form])
    asyncio.run(interact(spec, instances, machine, other, board, judge=judge))
    return board, judge


@pytest.mark.parametrize("who", ["machine", "other"])
@pytest.mark.parametrize("form", UNSTATED_FORMS)
def test_a_round_without_a_distribution_is_left_out_and_the_rule_compares_around_it(form: str, who: str) -> None:
    board, judge = debate(form, silent=(2,), who=who)
    (session,) = board.db.query("SELECT stop_reason, n_messages FROM data")
    # round 3 is compared with round 1 (WD fell), round 4 with round 3 (alike, apart): stalled after round 4; a one-hot
    # in round 2 would have stopped the debate there
    assert (session["stop_reason"], session["n_messages"]) == ("stalled", 8)
    assert [r["round"] for r in board.db.query("SELECT round FROM rounds ORDER BY round")] == [1, 3, 4]
    assert judge.rounds == [1, 3, 4]  # no CRIT of a round without both distributions
    left_out = list(board.db.query("SELECT round, machine_stated, human_stated FROM unstated_rounds"))
    assert left_out == [{"round": 2, "machine_stated": int(who == "other"), "human_stated": int(who == "machine")}]
    (summary,) = board.db.query("SELECT * FROM session_information")
    assert (summary["rounds"], summary["rounds_left_out"], summary["rule_at"], summary["rule_outcome"]) == (3, 1, 4, "stalled")


@pytest.mark.parametrize("form", UNSTATED_FORMS)
def test_the_final_distribution_combines_only_stated_distributions(form: str) -> None:
    # the other's last reply (round 4, at the bound) states none: the final combines its round-3 distribution
    board, _ = debate(form, silent=(2, 4), n=8)
    (session,) = board.db.query("SELECT stop_reason, final_distribution FROM data")
    assert session["stop_reason"] == "bound"
    assert json.loads(session["final_distribution"]) == pytest.approx(combine(MACHINE, OTHER[3]))
    ranks = {r["which"]: r for r in board.db.query("SELECT which, predicted FROM debate_ranks")}
    assert ranks["human_last"]["predicted"] == A  # its last stated distribution, not a one-hot on its prediction B


def test_a_model_reply_without_a_distribution_is_stored_with_none() -> None:
    task = get_task("diagnosis")
    row = task.demo_rows()[0]
    instance = Instance(1, "demo", row.key, row.split, row.input, meta=row.meta)
    client = LLMClient("gpt-4o-mini", params={"mock_response": f"Diagnosis: {A}\nExplanation: Fever and aches."})
    agent = MachineAgent(task, client, Checker(LLMClient("pxp-offline/checker")), debate=Debate(top_k=3))
    reply = asyncio.run(agent.respond(Turn(1, 1, instance, 0, 1, 1, 10, 3, (), ())))
    assert reply.prediction == A
    assert reply.meta["distribution_fallback"] == 1 and "distribution" not in reply.meta


def test_the_app_and_the_session_lines_show_a_round_left_out() -> None:
    stated = {"distribution_fallback": 0}
    messages = [
        Message(1, 1, *_sent(0), {**stated, "distribution": MACHINE}),
        Message(1, 2, *_sent(1), {**stated, "distribution": OTHER[1]}),
        Message(1, 3, *_sent(0), {**stated, "distribution": MACHINE}),
        Message(1, 4, *_sent(1), {"distribution_fallback": 1}),  # round 2: the other stated none
        Message(1, 5, *_sent(0), {**stated, "distribution": MACHINE}),
        Message(1, 6, *_sent(1), {**stated, "distribution": OTHER[3]}),
    ]
    shown = rounds_content(rounds_of(distributions(messages)), [2]).plain.splitlines()
    assert shown[2] == " 2 left out: no distribution stated" and shown[1].startswith(" 1 ") and shown[3].startswith(" 3 ")
    assert bars_content(messages[3].meta).plain == UNSTATED  # under the message: no bars made up
    assert "Influenza" in bars_content(messages[0].meta).plain
    out = io.StringIO()
    lines = SessionLines(out)
    lines.total = 1
    record = _record(messages)
    lines.session_ended(record, True)
    assert out.getvalue().rstrip().endswith("(left out, no distribution stated: round 2)")


def _sent(other: int) -> tuple:
    from pxp_tui.protocol import Sender

    sender = Sender.HUMAN if other else Sender.MACHINE
    return sender, Tag.REFUTE if other else Tag.INIT, A, "e"


def _record(messages: list[Message]):
    from pxp_tui.engine import SessionRecord
    from pxp_tui.protocol import StopReason

    instance = Instance(1, "demo", "case-01", "train", "text")
    return SessionRecord(1, instance, 0, tuple(messages), StopReason.BOUND)


def test_the_report_says_which_rounds_were_left_out(capsys, tmp_path: Path) -> None:
    db = tmp_path / "left.db"
    with Blackboard.open(db) as board:
        run_id, instances = setup_run(board, 1)
        board.db.execute("UPDATE runs SET top_k = 2, stop = 'evince', evince_rule = 'plateau' WHERE id = ?", [run_id])
        spec = RunSpec(run_id, n=20, stop="evince", evince_rule="plateau")
        asyncio.run(interact(spec, instances, Debater(True), Debater(False, (2,)), board))
    code, out, err = pxp(capsys, "report", "--db", db)
    assert code == 0, err
    assert "1 round(s) in 1 session(s) were left out: a reply stated no readable distribution (other 1)" in out
    assert "(ended: stalled 1)" in out
