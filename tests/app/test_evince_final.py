"""EVINCE's CRIT each round and the final distribution weighted by the last round's scores (Figure 1, step 3)
and aggregated (EnToPPS when the top-k sets differ), stored with each session; a crash between a session's end
and its weighing; two machines paused and resumed; the review of a model-vs-model run; what each agent is told
about the other's reply."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_harness.stub import Request, StubServer
from pxp_tui.agents import crit
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.blackboard import Blackboard, review
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import AgentError, Message, Turn
from pxp_tui.protocol import Sender, Tag
from pxp_tui.protocol.evince import aggregate
from pxp_tui.runs import final
from pxp_tui.runs.create import create_run
from pxp_tui.runs.execute import execute
from pxp_tui.tasks import get_task
from pxp_tui.tasks.base import ASK_AGAIN, ASK_AGAIN_OTHER, HUMAN, OTHER_EXPERT, before_ask

TWO_MACHINES = ("--task", "rad", "--model", "offline", "--human", "model:offline", "--top-k", "5", "--contentiousness", "0.9")


def rows(db: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def last_distributions(db: Path, session_id: int) -> dict[str, dict[str, float]]:
    """Each sender's latest stored distribution, read back independently of the blackboard's code."""
    found = {}
    for m in rows(db, "SELECT sender, distribution FROM messages WHERE session_id = ? ORDER BY j", (session_id,)):
        if m["distribution"]:
            found[m["sender"]] = json.loads(m["distribution"])
    return found


def check_finals(db: Path, k: int = 5) -> list[dict]:
    """Every stored final distribution is the stored last distributions aggregated as the run says (EnToPPS
    where their top-k sets differ, the weighted average otherwise) with the stored weights."""
    weights = []
    for s in rows(db, "SELECT * FROM data ORDER BY session_id"):
        last = last_distributions(db, s["session_id"])
        w = json.loads(s["final_weights"])
        expected, how = aggregate(last["machine"], last["human"], w["machine"], w["human"], k)
        assert w["aggregation"] == how
        assert json.loads(s["final_distribution"]) == pytest.approx(expected, abs=1e-12)
        weights.append(w)
    return weights


def last_crit(db: Path, session_id: int) -> dict | None:
    """The CRIT verdict stored with the session's latest judged round, read back independently."""
    found = rows(db, "SELECT crit FROM messages WHERE session_id = ? AND crit IS NOT NULL ORDER BY j DESC LIMIT 1", (session_id,))
    return json.loads(found[0][0]) if found else None


def test_the_final_distribution_is_weighted_by_the_offline_crit_judge(capsys, tmp_path: Path) -> None:
    db = tmp_path / "crit.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", *TWO_MACHINES, "--limit", "3", "--db", db)
    assert code == 0, err
    weights = check_finals(db)
    assert len(weights) == 3 and all(w["method"] == crit.OFFLINE_METHOD for w in weights)
    assert json.loads(rows(db, "SELECT options FROM runs")[0]["options"])["final_weights"] == "crit"
    # every round was judged, and its verdict is the offline stand-in's on the round's stored arguments (recomputed here)
    task = get_task("rad")
    with Blackboard.open(db) as board:
        for s in rows(db, "SELECT session_id, instance_id FROM data"):
            messages = {m.j: m for m in board.session_messages(s["session_id"])}
            (instance,) = board.instances([s["instance_id"]])
            for j in (j for j in messages if j % 2 == 0):
                prompt = crit.crit_prompt(
                    final.case_text(task, instance), final.argument(task, messages[j - 1]), final.argument(task, messages[j])
                )
                a, b = crit.parse_verdict(crit.offline_crit(prompt))
                stored = json.loads(messages[j].meta["crit"])
                assert (stored["machine"], stored["human"]) == pytest.approx((a.score, b.score), abs=1e-6)
                assert stored["reply"] == crit.offline_crit(prompt)  # kept for review
                assert "The experts were shown an image; you are not" in prompt[1]["content"]
            # the final weights are the last round's scores
            verdict = last_crit(db, s["session_id"])
            final_weights = json.loads(rows(db, "SELECT final_weights FROM data WHERE session_id = ?", (s["session_id"],))[0][0])
            assert (final_weights["machine"], final_weights["human"]) == (verdict["machine"], verdict["human"])
    code, out, err = pxp(capsys, "report", "--db", db)
    assert code == 0, err
    assert f"weighed by: {crit.OFFLINE_METHOD} in 3 (median weights machine" in out
    assert "a stand-in for CRIT that reads no reasons" in out


def test_equal_weights_when_asked_for(capsys, tmp_path: Path) -> None:
    db = tmp_path / "equal.db"
    code, _, err = pxp(
        capsys, "run", "--headless", "--quiet", *TWO_MACHINES, "--limit", "2", "--final-weights", "equal", "--db", db
    )
    assert code == 0, err
    weights = check_finals(db)
    assert [(w["machine"], w["human"], w["method"]) for w in weights] == [(1.0, 1.0, "equal")] * 2
    assert rows(db, "SELECT COUNT(*) FROM messages WHERE crit IS NOT NULL")[0][0] == 0  # no round judged: nothing reads it
    assert json.loads(rows(db, "SELECT options FROM runs")[0]["options"])["final_weights"] == "equal"
    code, out, _ = pxp(capsys, "report", "--db", db)
    assert "weighed by: equal in 2 (median weights machine 1, other 1)." in out
    code, _, err = pxp(capsys, "run", "--headless", *TWO_MACHINES, "--final-weights", "fair", "--db", db)
    assert code != 0 and "--final-weights" in err


def test_a_crash_before_the_weighing_leaves_equal_not_judged_and_the_resumed_run_weighs_it(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "crash.db"
    with Blackboard.open(db) as board:
        run_id = create_run(board, RunConfig(task="rad", human_kind=HumanKind.MODEL, human_model="offline", top_k=5, limit=3))
    weighed = final.Weigher.weigh

    async def dies(self, *args):  # the process dies as the first session is to be weighed
        raise RuntimeError("the process died")

    monkeypatch.setattr(final.Weigher, "weigh", dies)
    with Blackboard.open(db) as board, pytest.raises(RuntimeError):
        asyncio.run(execute(board, run_id))
    (first,) = rows(db, "SELECT * FROM data")
    assert first["stop_reason"] is not None  # the session ended, committed
    assert json.loads(first["final_weights"])["method"] == "equal (not judged)"
    check_finals(db)  # equal weights, honestly marked
    code, out, _ = pxp(capsys, "report", "--db", db)
    assert "weighed by: equal (not judged) in 1" in out and "resume the run to weigh them" in out
    monkeypatch.setattr(final.Weigher, "weigh", weighed)
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", "--resume", str(run_id), "--db", db)
    assert code == 0, err
    weights = check_finals(db)
    assert len(weights) == 3 and {w["method"] for w in weights} == {crit.OFFLINE_METHOD}
    assert (weights[0]["machine"], weights[0]["human"]) == (
        last_crit(db, first["session_id"])["machine"],
        last_crit(db, first["session_id"])["human"],
    )


VERDICT = {
    "expert_a": {
        "claim": "x",
        "reasons": [{"reason": "cites the consolidation", "validity": 8, "credibility": 10}],
        "rival_reasons": [],
        "score": 8,
    },
    "expert_b": {
        "claim": "y",
        "reasons": [{"reason": "restates its claim", "validity": 3, "credibility": 10}],
        "rival_reasons": [{"reason": "the consolidation", "validity": 8, "credibility": 10}],
        "score": 3,
    },
}


def judging_stub() -> Callable[[Request], str]:
    """The checker answers Yes; the judge's first two replies (the first round's) give no assessment, then it
    answers with Table 4's items in JSON: Expert A 8 (no rival), Expert B 3 against A's 8."""
    judged = []

    def reply(request: Request) -> str:
        if request.is_checker:
            return "Yes"
        assert request.system.startswith(crit.JUDGE_MARK), request.system
        judged.append(request)
        if len(judged) <= 2:
            return "Both experts make fair points."
        return "```json\n" + json.dumps(VERDICT) + "\n```"

    return reply


def test_an_llm_judge_through_the_http_path_and_its_failure(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")
    db = tmp_path / "judge.db"
    with StubServer(reply=judging_stub()) as stub:
        code, _, err = pxp(
            capsys, "run", "--headless", "--quiet", *TWO_MACHINES, "--limit", "2", "--db", db,
            "--checker", "openai/judge", "--checker-api-base", stub.url,
        )  # fmt: skip
        judged = [r for r in stub.answered() if r.system.startswith(crit.JUDGE_MARK)]
    assert code == 0, err
    rounds = rows(
        db,
        "SELECT session_id, round, crit, crit_machine, crit_human, crit_method FROM round_information ORDER BY session_id, round",
    )
    assert len(judged) == len(rounds) + 1  # each round once, the first twice (its first reply had no assessment)
    assert all(r.body["model"] == "judge" and r.body["temperature"] == 0 for r in judged)
    assert "Case: Chest X-ray, case" in judged[0].last_user_text() and "<expert_b>" in judged[0].last_user_text()
    first = json.loads(rows(db, "SELECT crit FROM messages WHERE session_id = ? AND j = 2", (rounds[0]["session_id"],))[0][0])
    assert first["method"].startswith("none (judge failed: no JSON object") and first["score"] is None
    assert first["reply"] == "Both experts make fair points."
    scored = [r for r in rounds[1:]]
    expected = (8 * 10 / 10, (3 * 10 / 10) * 3 / (3 + 8))  # Gamma: mean strength x the reasons' share
    assert all((r["crit_machine"], r["crit_human"]) == pytest.approx(expected) for r in scored)
    assert all(r["crit_method"] == "crit:openai/judge" and r["crit"] == pytest.approx(sum(expected) / 2) for r in scored)
    for w, s in zip(check_finals(db), rows(db, "SELECT session_id FROM data ORDER BY session_id"), strict=True):
        verdict = last_crit(db, s["session_id"])
        if verdict["machine"] is None:  # the only round of the session was the unjudged one
            assert (w["machine"], w["human"]) == (1.0, 1.0) and w["method"].startswith("equal (judge failed: no JSON")
        else:
            assert (w["machine"], w["human"], w["method"]) == pytest.approx((*expected, "crit:openai/judge"))


def test_two_machines_paused_mid_session_resume_to_exactly_the_planned_sessions(tmp_path: Path, monkeypatch) -> None:
    config = RunConfig(task="rad", human_kind=HumanKind.MODEL, human_model="offline", top_k=5, contentiousness=0.9, limit=3)
    whole, paused = tmp_path / "whole.db", tmp_path / "paused.db"
    for db in (whole, paused):
        with Blackboard.open(db) as board:
            create_run(board, config)
    with Blackboard.open(whole) as board:
        asyncio.run(execute(board, 1))
    answered = MachineAgent.respond
    calls = {"n": 0}

    async def fails_once(self, turn):
        calls["n"] += 1
        if calls["n"] == 5:  # mid-way through the first session (it runs to 10 messages)
            raise AgentError("the network went down")
        return await answered(self, turn)

    monkeypatch.setattr(MachineAgent, "respond", fails_once)
    with Blackboard.open(paused) as board, pytest.raises(AgentError):
        asyncio.run(execute(board, 1))
    with Blackboard.open(paused) as board:
        assert board.run(1).status.value == "paused"
    (open_session,) = rows(paused, "SELECT * FROM data")
    assert open_session["stop_reason"] is None and open_session["n_messages"] == 4
    with Blackboard.open(paused) as board:
        asyncio.run(execute(board, 1))  # resumed at message 5
    sessions = rows(paused, "SELECT * FROM data ORDER BY ord")
    plan = json.loads(rows(paused, "SELECT plan FROM runs")[0]["plan"])
    assert [s["instance_id"] for s in sessions] == plan and all(s["stop_reason"] for s in sessions)
    fields = "d.ord, m.j, m.sender, m.tag, m.prediction, m.explanation, m.distribution"
    sql = f"SELECT {fields} FROM messages m JOIN data d USING (session_id) ORDER BY d.ord, m.j"
    resumed = [tuple(r) for r in rows(paused, sql)]
    assert resumed == [tuple(r) for r in rows(whole, sql)]  # as if it had never paused
    assert all(r[-1] for r in resumed)  # a distribution on every message
    assert [w["method"] for w in check_finals(paused)] == [crit.OFFLINE_METHOD] * 3


def test_the_review_shows_both_models_messages_with_their_distributions_and_the_final(capsys, tmp_path: Path) -> None:
    db = tmp_path / "review.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", *TWO_MACHINES, "--limit", "1", "--db", db)
    assert code == 0, err
    with Blackboard.open(db) as board:
        (row,) = review.sessions(board, 1).rows
        replay = review.replay(board, row.session_id)
    assert replay.run.human == "model:offline"
    models = {m.sender: m.meta["model"] for m in replay.messages}
    assert models == {Sender.MACHINE: "pxp-offline/rad", Sender.HUMAN: "pxp-offline/rad-second"}
    assert all(json.loads(m.meta["distribution"]) for m in replay.messages)
    assert json.loads(replay.session["final_weights"])["method"] == crit.OFFLINE_METHOD
    from pxp_tui.app.review.message_card import MessageCard
    from pxp_tui.app.review.replay_screen import final_card

    card = final_card(replay.session)
    assert card is not None
    text = str(card.render())
    assert "Final distribution · " in text and "weights machine" in text and f"by {crit.OFFLINE_METHOD}" in text and "%" in text
    assert final_card({"final_distribution": None, "final_weights": None}) is None
    assert MessageCard(replay.messages[0])  # built from the stored message; drawn in the app test below


@pytest.mark.slow
def test_the_replay_screen_draws_each_distribution_and_the_final_one(capsys, tmp_path: Path) -> None:
    from textual.widgets import DataTable

    from pxp_harness.app_helpers import wait_for
    from pxp_tui.app.review import ReviewApp

    from .test_app_look import text_of

    db = tmp_path / "replay.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", *TWO_MACHINES, "--limit", "1", "--db", db)
    assert code == 0, err

    async def drive() -> None:
        app = ReviewApp(str(db))
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.screen.query(DataTable) and app.screen.query_one(DataTable).row_count)
            await pilot.press("enter")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "SessionsScreen", "the sessions")
            await pilot.press("enter")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ReplayScreen", "the replay")
            await wait_for(pilot, lambda: app.screen.query(".card-distribution"), "the first distribution")
            assert not app.screen.query("#replay-final")  # not before the last message
            await pilot.press("end")
            final_shown = await wait_for(pilot, lambda: app.screen.query("#replay-final"), "the final distribution")
            shown = " ".join(text_of(final_shown.first()).replace("│", " ").split())  # lines joined: the title wraps
            assert crit.OFFLINE_METHOD in shown
            assert len(app.screen.query(".card-distribution")) == len(rows(db, "SELECT j FROM messages"))

    asyncio.run(drive())


def test_each_agent_is_told_of_the_other_agents_reply_in_a_machine_machine_run() -> None:
    task = get_task("rad")
    (row,) = task.demo_rows()[:1]
    from pxp_tui.common.instance import Instance

    instance = Instance(1, "demo", row.key, row.split, row.input, row.image_bytes(), row.image_mime)
    history = (Message(1, 1, Sender.MACHINE, Tag.INIT, "Pneumonia", "Consolidation."),)
    turn = Turn(1, 1, instance, 0, 1, 2, 10, 3, history, ())
    checker = Checker(LLMClient("pxp-offline/checker"))

    def asked(other: str) -> str:
        agent = MachineAgent(task, LLMClient("pxp-offline/rad-second"), checker, seat="human", other=other)
        content = agent.prompt(turn)[-1]["content"]
        return "\n".join(p["text"] for p in content if p.get("type") == "text") if isinstance(content, list) else content

    facing_machine, facing_human = asked(OTHER_EXPERT), asked(HUMAN)
    assert ASK_AGAIN_OTHER in facing_machine and ASK_AGAIN not in facing_machine
    assert ASK_AGAIN in facing_human and ASK_AGAIN_OTHER not in facing_human
    # the offline baselines read the exchange without the closing instruction, whichever it is
    for text in (facing_machine, facing_human):
        kept = before_ask(text)
        assert "Considering" not in kept and "(INIT).\nPrediction: Pneumonia" in kept
