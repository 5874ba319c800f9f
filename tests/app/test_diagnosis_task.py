"""DIAGNOSIS: any labelled CSV of case descriptions (labels read from the data), its replies and distributions,
the bundled demo (invented cases) with the proxy and with two offline machines debating under both stop rules."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.common.instance import Instance
from pxp_tui.engine import ParseError
from pxp_tui.protocol.evince import OUTCOMES
from pxp_tui.tasks import get_task
from pxp_tui.tasks.pictures import CellPicture, Surface

from .test_evince_outcomes import check_stop_reasons
from .test_offline_debaters import check_each_states_its_top

TASK = get_task("diagnosis")
DEBATE = ("--task", "diagnosis", "--human", "model:offline", "--top-k", "3", "--contentiousness", "0.9", "--stop", "evince")


def rows(db: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def case(labels: tuple[str, ...] = ("Influenza", "Migraine", "Hepatitis B")) -> Instance:
    return Instance(
        1, "d", "c1", input="Fever and aching muscles.", reference_prediction="Influenza", meta={"labels": list(labels)}
    )


def test_any_labelled_csv_imports_with_its_own_labels(capsys, tmp_path: Path) -> None:
    csv = tmp_path / "clinic.csv"
    csv.write_text(
        "id,Symptoms,Disease,split\n"
        'p1,"Itchy rash, fever",Chickenpox,train\n'
        "p2,Yellow skin and dark urine,hepatitis b,train\n"
        "p3,Yellow skin; tired,Hepatitis  B,test\n"
        "p4,Wheeze at night,Asthma,val\n",
        encoding="utf-8",
    )
    db = tmp_path / "d.db"
    code, out, err = pxp(capsys, "import", "--db", db, "diagnosis", csv)
    assert code == 0, err
    assert "imported 4 diagnosis instances (train 2, val 1, test 1" in out
    found = rows(db, "SELECT key, input, reference_prediction, meta FROM instances ORDER BY id")
    assert [r["key"] for r in found] == ["p1", "p2", "p3", "p4"]
    # three labels, read from the data: case and spacing do not make another, the first spelling is kept
    assert [r["reference_prediction"] for r in found] == ["Chickenpox", "hepatitis b", "hepatitis b", "Asthma"]
    assert json.loads(found[0]["meta"])["labels"] == ["Asthma", "Chickenpox", "hepatitis b"]
    assert found[0]["input"] == "Itchy rash, fever"


def test_a_table_of_symptom_columns_is_joined_into_the_description(capsys, tmp_path: Path) -> None:
    csv = tmp_path / "symptoms.csv"
    csv.write_text("Disease,Symptom_1,Symptom_2,Symptom_3\nMalaria,chills,high_fever,\nGERD,acidity,chest_pain,cough\n")
    db = tmp_path / "d.db"
    code, _, err = pxp(capsys, "import", "--db", db, "diagnosis", csv)
    assert code == 0, err
    found = rows(db, "SELECT key, input, reference_explanation FROM instances ORDER BY id")
    assert [(r["key"], r["input"]) for r in found] == [
        ("case-001", "chills, high_fever"),
        ("case-002", "acidity, chest_pain, cough"),
    ]
    assert found[0]["reference_explanation"] == "The recorded diagnosis of this case is Malaria."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("description,notes\nfever,x\n", "no label column (one named label, diagnosis"),
        ("description,label\nfever,Flu\ncough,flu\n", "every row has the same label ('Flu')"),
        ("description,label\n,Flu\ncough,Cold\n", "line 2: empty description"),
        ("key,description,label\na,fever,Flu\na,cough,Cold\n", "duplicate key 'a'"),
    ],
)
def test_a_bad_file_is_refused_with_its_reason_and_nothing_is_stored(capsys, tmp_path: Path, text: str, words: str) -> None:
    csv = tmp_path / "bad.csv"
    csv.write_text(text)
    db = tmp_path / "d.db"
    code, _, err = pxp(capsys, "import", "--db", db, "diagnosis", csv)
    assert code != 0 and words in err, err
    assert not db.exists() or rows(db, "SELECT COUNT(*) FROM instances")[0][0] == 0


def test_the_prompt_offers_the_candidates_and_a_reply_is_read_against_them() -> None:
    instance = case()
    assert (
        TASK.instance_content(instance)
        == "Case c1: Fever and aching muscles.\nCandidate diagnoses: Influenza, Migraine, Hepatitis B"
    )
    assert TASK.parse("**Diagnosis:** influenza\nExplanation: fever.", instance) == ("Influenza", "fever.")
    assert TASK.parse("Diagnosis: Most likely Hepatitis B.\nExplanation: jaundice.", instance)[0] == "Hepatitis B"
    # a diagnosis outside the candidates is kept as written (it matches no label), never dropped
    assert TASK.parse("Diagnosis: Dengue fever\nExplanation: travel.", instance)[0] == "Dengue fever"
    with pytest.raises(ParseError, match="no 'Diagnosis:'"):
        TASK.parse("Explanation: only this", instance)
    assert TASK.match("Hepatitis  B", "hepatitis b") and not TASK.match("Hepatitis B", "Hepatitis C")


def test_a_distribution_is_cut_to_top_k_and_keeps_labels_outside_the_candidates() -> None:
    text = "Diagnosis: Influenza\nExplanation: x\nDistribution: Influenza: 50%, Dengue fever: 30%, Migraine: 15%, Hepatitis B: 5%"
    read = TASK.read_distribution(text, "Influenza", case(), 3)
    assert read is not None and not read.missing
    assert read.probabilities == pytest.approx(
        {"Influenza": 0.5 / 0.95, "Migraine": 0.15 / 0.95, "Hepatitis B": 0.0, "Dengue fever": 0.3 / 0.95}
    )
    assert read.unread == ("Dengue fever",) and read.cut == ("Hepatitis B",)
    instruction = TASK.distribution_instruction(3)
    assert "the 3 most likely candidate diagnoses" in instruction and "Distribution: <diagnosis>: <p>" in instruction


def test_the_case_is_drawn_as_its_text_for_the_app() -> None:
    picture = TASK.draw_instance(case(), Surface(30, 10, (300, 200), "halfcell"))
    assert isinstance(picture, CellPicture)
    assert picture.lines[0] == "Fever and aching muscles."
    assert " ".join(picture.lines[2:]) == "Candidates: Influenza, Migraine, Hepatitis B"
    assert all(len(line) <= 30 for line in picture.lines)  # wrapped to the surface


def test_the_demo_is_invented_with_six_labels() -> None:
    demo = TASK.demo_rows()
    assert len(demo) == 24 and all(r.input.startswith("Invented case.") for r in demo)
    assert set(demo[0].meta["labels"]) == {r.reference_prediction for r in demo} and len(demo[0].meta["labels"]) == 6
    assert {r.split for r in demo} == {"train", "val", "test"}


def test_a_human_machine_run_with_the_proxy_on_the_demo(capsys, tmp_path: Path) -> None:
    db = tmp_path / "proxy.db"
    code, _, err = pxp(capsys, "run", "--headless", "--task", "diagnosis", "--top-k", "3", "--limit", "6", "--db", db)
    assert code == 0, err
    sessions = rows(db, "SELECT stop_reason FROM data")
    assert len(sessions) == 6 and all(s["stop_reason"] in ("ratified", "rejected", "bound") for s in sessions)
    machine = rows(db, "SELECT prediction, distribution FROM messages WHERE sender = 'machine'")
    assert all(sum(p > 0 for p in json.loads(m["distribution"]).values()) <= 3 for m in machine)
    # it states a distribution with every answer, its own diagnosis or the one it took over ranked first
    for m in machine:
        stated = json.loads(m["distribution"])
        assert stated[m["prediction"]] == max(stated.values()), (m["prediction"], stated)
    ranks = rows(db, "SELECT which, top1, topk FROM debate_ranks")
    assert {r["which"] for r in ranks} == {"machine_first", "machine_last"}  # the proxy states no distribution


def test_without_a_contentiousness_the_pair_debates_each_stating_its_own_top(capsys, tmp_path: Path) -> None:
    """Without ``--contentiousness`` the two readers still debate (at contentiousness 0): each reply states a
    distribution whose most probable diagnosis is the one it names; the second reader does not copy the machine."""
    db = tmp_path / "plain.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", "--task", "diagnosis", "--human", "model:offline", "--top-k", "3",
                       "--limit", "4", "--db", db)  # fmt: skip
    assert code == 0, err
    found = check_each_states_its_top(db, "diagnosis")
    assert any(m["j"] == 2 and m["tag"] != "RATIFY" for m in found)  # the second reader disagrees somewhere


@pytest.mark.slow
def test_two_offline_machines_debate_the_demo_and_both_stop_outcomes_occur(capsys, tmp_path: Path) -> None:
    """With Figure 1's loop, debates that start apart either stop when a measure worsens (saying what it found) or,
    stalled with nothing getting worse, run to the bound; with the plateau rule, a stall stops at once."""
    fig1, plateau = tmp_path / "fig1.db", tmp_path / "plateau.db"
    for db, rule in ((fig1, "fig1"), (plateau, "plateau")):
        code, _, err = pxp(capsys, "run", "--headless", "--quiet", *DEBATE, "--evince-rule", rule, "--db", db)
        assert code == 0, err
    reasons = check_stop_reasons(fig1)  # never converged on a rising WD
    assert set(reasons) & set(OUTCOMES) and "bound" in reasons
    check_stop_reasons(plateau)
    # they start apart: the first round's WD % is large, and falls over the session in most
    first = rows(fig1, "SELECT wasserstein_percent FROM round_information WHERE round = 1")
    assert max(r[0] for r in first) > 50
    fell = rows(fig1, "SELECT SUM(wasserstein_decreased), COUNT(*) FROM session_information")[0]
    assert fell[0] > fell[1] / 2
    # every round judged by CRIT, and where the loop stopped, it stopped at the first round the rule held
    assert rows(fig1, "SELECT COUNT(*) FROM round_information WHERE crit IS NULL")[0][0] == 0
    for s in rows(fig1, "SELECT * FROM session_information WHERE stop_reason IN ('converged', 'diverged', 'stalled')"):
        assert s["rule_at"] == s["fig1_at"] == s["rounds"]
    # the plateau rule stops debates that stall apart (WD flat and still large); Figure 1's loop lets them run on
    stalled = [
        s
        for s in rows(plateau, "SELECT * FROM session_information WHERE stop_reason = 'stalled' ORDER BY ord")
        if rows(
            plateau,
            "SELECT wasserstein_percent FROM round_information WHERE session_id = ? AND round = ?",
            (s["session_id"], s["rounds"]),
        )[0][0]
        > 20
    ]
    assert stalled and all(s["rule_at"] == s["plateau_at"] == s["rounds"] for s in stalled)
    (same,) = rows(fig1, "SELECT stop_reason FROM data WHERE ord = ?", (stalled[0]["ord"],))
    assert same["stop_reason"] == "bound"
    code, out, err = pxp(capsys, "report", "--db", fig1, "--out", tmp_path / "out")
    assert code == 0, err
    assert "### Evaluation against the label" in out and "| final (aggregated) | 18 | 3 |" in out
    assert "Confusion matrix of final distributions" in out and "by EnToPPS" in out
    assert (tmp_path / "out" / "information.png").read_bytes().startswith(b"\x89PNG")
    assert len(list((tmp_path / "out").glob("case-*.png"))) == 3
