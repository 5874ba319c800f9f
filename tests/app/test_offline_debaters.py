"""The offline pair that debates, on RAD and DRUG: two different readers (their own priors and temperatures)
whose distributions start apart on the bundled demo and, as the contentiousness falls, converge or stall,
through the same prompt and parse path as an LLM. DIAGNOSIS's pair is checked in test_diagnosis_task.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.protocol.evince import OUTCOMES
from pxp_tui.tasks import get_task
from pxp_tui.tasks.debating import contentiousness_in, debated, held
from pxp_tui.tasks.drug import baseline as drug
from pxp_tui.tasks.drug.prompt import instance_text

from .test_evince_outcomes import check_stop_reasons


def rows(db: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def debate_prompt(user: str, k: int = 3) -> list[dict]:
    return [
        {"role": "system", "content": get_task("drug").system_prompt() + "\n" + get_task("drug").distribution_instruction(k)},
        {"role": "user", "content": user},
    ]


def test_a_reader_holds_to_its_view_by_the_contentiousness_or_its_own_certainty() -> None:
    unsure, sure, other = {"a": 0.5, "b": 0.5}, {"a": 0.8, "b": 0.2}, {"b": 1.0}
    assert held(unsure, 0.9) == 0.9 and held(unsure, 0.2) == 0.5 and held(sure, 0.2) == 0.8
    assert debated(unsure, other, 0.2) == pytest.approx({"a": 0.25, "b": 0.75})  # it moves towards the other
    assert debated(sure, other, 0.2) == pytest.approx({"a": 0.64, "b": 0.36})  # sure of itself, it holds
    assert debated(sure, None, 0.2) == sure  # nothing stated by the other yet: its own view
    assert list(debated({"x": 1.0}, {"y": 1.0}, 0.5, ("y", "x"))) == ["y", "x"]  # the task's order first
    assert contentiousness_in(["Debate contentiousness: 0.90", "no debate here"]) is None
    assert contentiousness_in(["x", "... Debate contentiousness: 0.51 on a scale ..."]) == 0.51


def test_the_second_drug_reader_has_its_own_taste_and_the_machine_keeps_its_answer() -> None:
    """On the demo's targets the two DRUG readers rank the disconnections differently (their first distributions
    differ), and outside a debate the machine's reply is the baseline's, its distribution exp(-rank)."""
    differ = 0
    for row in get_task("drug").demo_rows():
        messages = debate_prompt(instance_text(row.key, row.input))
        first, second = drug.reply(messages), drug.reply(messages, drug.SECOND)
        assert first == drug.answer(messages) + drug._listing(drug.distribution(messages, 3))
        differ += first.split("Distribution:")[1] != second.split("Distribution:")[1]
    assert differ >= 8


def test_a_drug_debater_weighs_the_other_experts_distribution() -> None:
    """In a debate the reply names the most probable set of its own view mixed with the other's latest: at a low
    contentiousness the machine, unsure, takes up the other's first choice, with the other's explanation."""
    target = "CC(=O)Nc1ccc(O)cc1"
    other = "CC(=O)Cl.Nc1ccc(O)cc1"
    reply = f"The other expert (REFUTE).\nPathway: {other}\nExplanation: acyl chloride, fast.\nDistribution: {other}: 1.00"
    for level, named in ((0.9, "CC(=O)OC(C)=O.Nc1ccc(O)cc1"), (0.1, other)):
        messages = debate_prompt(instance_text("paracetamol", target))
        messages += [
            {"role": "assistant", "content": drug.reply(messages)},
            {
                "role": "user",
                "content": f"{reply}\n\nConsidering the other agent's reply, ... Debate contentiousness: {level:.2f} on a scale",
            },
        ]
        text = drug.reply(messages)
        pathway, explanation = get_task("drug").parse(text)
        assert pathway == named
        assert (explanation == "acyl chloride, fast.") == (named == other)
        stated = get_task("drug").read_distribution(text, pathway, None, 3)
        assert stated is not None and not stated.missing and stated.top == named and other in stated.probabilities


def check_each_states_its_top(db: Path, task: str) -> list[sqlite3.Row]:
    """Every reply of the offline pair states a distribution whose most probable answer is its own prediction (a
    DRUG reply naming no disconnection states the target itself, which is no reactant set: none, flagged); the
    messages."""
    found = rows(
        db,
        "SELECT m.*, i.input FROM messages m JOIN data d ON d.session_id = m.session_id JOIN instances i ON i.id = d.instance_id",
    )
    normalise = get_task(task).normalise
    for m in found:
        if m["distribution"] is None:
            assert task == "drug" and m["distribution_fallback"] == 1 and normalise(m["prediction"]) == normalise(m["input"])
            continue
        stated = json.loads(m["distribution"])
        tops = {normalise(x) for x, p in stated.items() if p == max(stated.values())}
        assert m["distribution_fallback"] == 0 and normalise(m["prediction"]) in tops, (m["session_id"], m["j"], stated)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("task", ["rad", "drug"])
def test_without_a_contentiousness_the_pair_debates_each_stating_its_own_top(capsys, tmp_path: Path, task: str) -> None:
    """Without ``--contentiousness`` the two readers still debate (at contentiousness 0: each holds by its own
    certainty): the second reader answers with the top of its own distribution, not a copy of the machine's."""
    db = tmp_path / "plain.db"
    code, _, err = pxp(
        capsys, "run", "--headless", "--quiet", "--task", task, "--human", "model:offline", "--top-k", "3", "--db", db
    )
    assert code == 0, err
    found = check_each_states_its_top(db, task)
    assert any(m["j"] == 2 and m["tag"] != "RATIFY" for m in found)  # the second reader disagrees somewhere


@pytest.mark.slow
@pytest.mark.parametrize("task", ["rad", "drug"])
def test_two_offline_machines_debate_the_demo_and_both_stop_outcomes_occur(capsys, tmp_path: Path, task: str) -> None:
    """As on DIAGNOSIS: the two readers start apart; with Figure 1's loop some debates stop when a measure
    worsens (saying what it found: converged, diverged or stalled) and others run to the bound; the plateau rule
    stops those that stall apart at once."""
    dbs = {rule: tmp_path / f"{rule}.db" for rule in ("fig1", "plateau")}
    for rule, db in dbs.items():
        code, _, err = pxp(
            capsys, "run", "--headless", "--quiet", "--task", task, "--human", "model:offline", "--top-k", "3",
            "--contentiousness", "0.9", "--stop", "evince", "--evince-rule", rule, "--db", db,
        )  # fmt: skip
        assert code == 0, err
    fig1, plateau = dbs["fig1"], dbs["plateau"]
    assert {m["model"] for m in rows(fig1, "SELECT model FROM messages")} == {f"pxp-offline/{task}", f"pxp-offline/{task}-second"}
    # they start apart: the two first distributions differ in most sessions, by up to more than half the mass
    firsts = rows(
        fig1,
        "SELECT a.distribution AS machine, b.distribution AS other FROM messages a JOIN messages b "
        "ON a.session_id = b.session_id AND a.j = 1 AND b.j = 2 "
        "WHERE a.distribution IS NOT NULL AND b.distribution IS NOT NULL",  # DRUG: a target no template disconnects
    )
    assert sum(json.loads(f["machine"]) != json.loads(f["other"]) for f in firsts) > len(firsts) / 2
    assert max(r[0] for r in rows(fig1, "SELECT wasserstein_percent FROM round_information WHERE round = 1")) > 50
    fell = rows(fig1, "SELECT SUM(wasserstein_decreased), COUNT(*) FROM session_information")[0]
    assert fell[0] > fell[1] / 2
    # both outcomes under Figure 1's loop; a REJECT (two sure readers, different answers) is PXP's own end
    reasons = [r["stop_reason"] for r in rows(fig1, "SELECT stop_reason FROM data")]
    assert set(reasons) & set(OUTCOMES) and "bound" in reasons and set(reasons) <= {*OUTCOMES, "bound", "rejected"}
    check_stop_reasons(fig1)  # never converged on a rising WD
    check_stop_reasons(plateau)
    assert rows(fig1, "SELECT COUNT(*) FROM round_information WHERE crit IS NULL")[0][0] == 0
    for s in rows(fig1, "SELECT * FROM session_information WHERE stop_reason IN ('converged', 'diverged', 'stalled')"):
        assert s["rule_at"] == s["fig1_at"] == s["rounds"] < 5
    # the plateau rule stops the debates that stall apart (WD flat, still above 20%) where they stall
    stalled = rows(
        plateau,
        "SELECT s.* FROM session_information s JOIN round_information r ON r.session_id = s.session_id "
        "AND r.round = s.rounds WHERE s.stop_reason = 'stalled' AND r.wasserstein_percent > 20 ORDER BY s.ord",
    )
    assert stalled and all(s["rule_at"] == s["plateau_at"] == s["rounds"] for s in stalled)
    under_fig1 = [rows(fig1, "SELECT stop_reason FROM data WHERE ord = ?", (s["ord"],))[0][0] for s in stalled]
    assert "bound" in under_fig1  # where Figure 1's loop, accepting a flat round, runs on
