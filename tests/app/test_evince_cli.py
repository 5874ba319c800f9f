"""EVINCE end to end: two machines debating under PXP's tag table, their distributions stored with every
message, EVINCE's measures per round (checked against scipy), the EVINCE stop rule, the report's section."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_harness.stub import Request, StubServer
from pxp_tui.protocol.evince import RoundInformation
from pxp_tui.tasks.rad.labels import LABELS

scipy_stats = pytest.importorskip("scipy.stats")
scipy_distance = pytest.importorskip("scipy.spatial.distance")

DONE_WHEN = ("--task", "rad", "--model", "offline", "--human", "model:offline", "--top-k", "5", "--contentiousness", "0.9")


def rows(db: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def check_rounds_against_scipy(db: Path) -> int:
    """Every stored round equals scipy's measures on the distributions stored with its two messages."""
    checked = 0
    for r in rows(db, "SELECT * FROM round_information"):
        a, b = (
            json.loads(rows(db, "SELECT distribution FROM messages WHERE session_id = ? AND j = ?", (r["session_id"], j))[0][0])
            for j in (2 * r["round"] - 1, 2 * r["round"])
        )
        p, q = [a.get(x, 0.0) for x in LABELS], [b.get(x, 0.0) for x in LABELS]
        assert set(a) == set(b) == set(LABELS)
        assert r["entropy_machine"] == pytest.approx(scipy_stats.entropy(p, base=2), abs=1e-9)
        assert r["entropy_human"] == pytest.approx(scipy_stats.entropy(q, base=2), abs=1e-9)
        assert r["js_divergence"] == pytest.approx(scipy_distance.jensenshannon(p, q, base=2) ** 2, abs=1e-9)
        # RAD's ground metric is 0/1 (its conditions have no order): the total variation
        assert r["wasserstein"] == pytest.approx(scipy_distance.cityblock(p, q) / 2, abs=1e-9)
        ps, qs = ([(v + 0.01) / 1.05 for v in d] for d in (p, q))
        assert r["kl_machine_human"] == pytest.approx(scipy_stats.entropy(ps, qs, base=2), abs=1e-9)
        assert r["kl_human_machine"] == pytest.approx(scipy_stats.entropy(qs, ps, base=2), abs=1e-9)
        python = RoundInformation.measure(r["round"], a, b, LABELS)
        assert r["normalised_mi"] == pytest.approx(python.normalised_mi, abs=1e-9)
        assert r["mutual_information"] == pytest.approx(python.mutual_information, abs=1e-9)
        checked += 1
    return checked


@pytest.mark.slow
def test_the_done_when_command_two_offline_machines_debate_every_demo_case(capsys, tmp_path: Path) -> None:
    db = tmp_path / "evince.db"
    code, out, err = pxp(capsys, "run", "--headless", *DONE_WHEN, "--db", db)
    assert code == 0, err
    assert "human model:offline" in out
    (run,) = rows(db, "SELECT * FROM runs")
    assert (run["human_kind"], run["human_model"], run["model"], run["top_k"]) == ("model", "offline", "offline", 5)
    assert (run["contentiousness"], run["contentiousness_decay"], run["stop"]) == (0.9, 0.25, "pxp")
    sessions = rows(db, "SELECT * FROM data")
    assert len(sessions) == 20 and all(s["ended_at"] for s in sessions)
    messages = rows(db, "SELECT * FROM messages")
    assert messages and all(m["distribution"] and m["distribution_fallback"] == 0 for m in messages)
    # the second reader is genuinely another: the sessions are not all INIT/RATIFY/RATIFY
    assert max(s["n_messages"] for s in sessions) >= 6
    assert {m["model"] for m in messages} == {"pxp-offline/rad", "pxp-offline/rad-second"}
    # the prompts carried the contentiousness: the machine's raw reply restates nothing of it, but the rounds
    # the sessions reached are measured, each equal to scipy's
    assert check_rounds_against_scipy(db) == sum(s["n_messages"] // 2 for s in sessions)
    assert all(s["final_distribution"] for s in sessions)
    code, out, err = pxp(capsys, "report", "--db", db, "--out", tmp_path / "out")
    assert code == 0, err
    assert (
        "## Information (EVINCE)" in out
        and "| round | sessions | H machine | H other | WD | WD % | JSD | NMI | MI | CRIT |" in out
    )
    assert "| 1 | 20 |" in out
    png = (tmp_path / "out" / "information.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert (tmp_path / "out" / "information.csv").read_text().startswith("round,sessions,")


@pytest.mark.slow
def test_the_evince_stop_rule_ends_sessions_with_what_it_found_and_ratifying_does_not(capsys, tmp_path: Path) -> None:
    db = tmp_path / "stop.db"
    code, _, err = pxp(
        capsys, "run", "--headless", "--quiet", *DONE_WHEN, "--stop", "evince", "--evince-rule", "plateau", "--n", "40",
        "--limit", "2", "--db", db,
    )  # fmt: skip
    assert code == 0, err
    reasons = [s["stop_reason"] for s in rows(db, "SELECT stop_reason FROM data")]
    assert "ratified" not in reasons and set(reasons) <= {"converged", "diverged", "stalled"}
    for s in rows(db, "SELECT * FROM session_information"):
        # it stopped at the first round where the rule held, and says what the rule found there
        assert s["rule_at"] == s["plateau_at"] == s["rounds"] and s["rule_outcome"] == s["stop_reason"]
    check_rounds_against_scipy(db)


def test_settings_are_checked(capsys, tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    for argv, words in (
        (("--human", "model:"), "names no model"),
        (("--stop", "evince"), "add --top-k"),
        (("--human", "model:offline", "--contentiousness", "1.5"), "--contentiousness lies in [0, 1]"),
    ):
        code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--db", db, *argv)
        assert code != 0 and words in err, err


def test_distributions_without_a_second_machine_are_stored_for_the_proxy_run(capsys, tmp_path: Path) -> None:
    """--top-k alone: the machine states a distribution (the offline baseline's softmax over distances); the
    proxy states none, so there are no rounds and the report says so."""
    db = tmp_path / "proxy.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", "--task", "rad", "--top-k", "3", "--limit", "3", "--db", db)
    assert code == 0, err
    machine = rows(db, "SELECT distribution FROM messages WHERE sender = 'machine'")
    # RAD's distributions carry the five conditions, those outside the top 3 at 0
    assert machine and all(set(json.loads(m[0])) == set(LABELS) for m in machine)
    assert all(sum(p > 0 for p in json.loads(m[0]).values()) <= 3 for m in machine)
    assert rows(db, "SELECT COUNT(*) FROM messages WHERE sender = 'human' AND distribution IS NOT NULL")[0][0] == 0
    _, out, _ = pxp(capsys, "report", "--db", db)
    # no rounds, but the machine's first and last distributions are evaluated against the labels
    assert "No rounds: no session of these runs has both agents' distributions" in out
    assert "| machine, first | 3 | 3 |" in out and "| other, first |" not in out


def _second_machine(request: Request) -> str:
    """An LLM in the human's seat: names Pneumonia with a distribution in percent, except once, with none."""
    if "Debate contentiousness: " not in request.last_user_text():
        return "Prediction: Atelectasis\nExplanation: no debate was asked for."
    if request.number == 1:
        return "Prediction: Pneumonia\nExplanation: Patchy consolidation in the right lower lobe."
    return (
        "**Prediction:** Pneumonia\n**Explanation:** Patchy consolidation in the right lower lobe.\n"
        "**Distribution:** Pneumonia 60%, Atelectasis 20%, Pleural Effusion 10%, Cardiomegaly 5%, Pneumothorax 5%"
    )


@pytest.mark.slow
def test_a_litellm_model_in_the_human_seat_through_the_http_path(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")
    db = tmp_path / "stub.db"
    with StubServer(reply=_second_machine) as stub:
        code, _, err = pxp(
            capsys, "run", "--headless", "--quiet", "--task", "rad", "--limit", "2", "--db", db,
            "--model", "offline", "--human", "model:openai/second", "--human-api-base", stub.url,
            "--human-temperature", "1.2", "--top-k", "5", "--contentiousness", "0.9",
        )  # fmt: skip
    assert code == 0, err
    sent = stub.requests
    assert sent and all(r.body["model"] == "second" and r.body.get("temperature") == 1.2 for r in sent)
    first = sent[0]
    assert "Distribution: Atelectasis: <p>, Pneumonia: <p>" in first.system
    assert "Debate contentiousness: 0.90" in first.last_user_text()
    assert "The other expert (INIT)." in first.last_user_text()  # the machine's message, from the seat
    human = rows(db, "SELECT * FROM messages WHERE sender = 'human' ORDER BY session_id, j")
    # the reply without a distribution: none stored (never a one-hot on its prediction), its round left out
    assert human[0]["model"].endswith("second") and human[0]["distribution_fallback"] == 1
    assert human[0]["distribution"] is None
    left_out = rows(db, "SELECT session_id, round, machine_stated, human_stated FROM unstated_rounds")
    assert [tuple(r) for r in left_out] == [(human[0]["session_id"], 1, 1, 0)]
    assert not rows(db, "SELECT 1 FROM rounds WHERE session_id = ? AND round = 1", (human[0]["session_id"],))
    later = [h for h in human[1:]]
    assert later and all(h["distribution_fallback"] == 0 for h in later)
    assert json.loads(later[0]["distribution"])["Pneumonia"] == pytest.approx(0.6)
    (run,) = rows(db, "SELECT human_model, human_temperature, options FROM runs")
    assert (run["human_model"], run["human_temperature"]) == ("openai/second", 1.2)
    assert json.loads(run["options"])["human_api_base"] == stub.url
    check_rounds_against_scipy(db)


@pytest.mark.slow
def test_repeated_debates_merge_and_export_with_their_rounds(capsys, tmp_path: Path) -> None:
    db, merged = tmp_path / "repeat.db", tmp_path / "merged.db"
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", *DONE_WHEN, "--limit", "3", "--repeat", "2", "--db", db)
    assert code == 0, err
    stored = sorted(tuple(r)[4:] for r in rows(db, "SELECT * FROM round_information"))
    assert stored and {r["run_id"] for r in rows(db, "SELECT run_id FROM round_information")} == {1, 2}
    code, _, err = pxp(capsys, "merge", merged, db)
    assert code == 0, err
    again = sorted(tuple(r)[4:] for r in rows(merged, "SELECT * FROM round_information"))
    assert again == pytest.approx(stored)  # recomputed by the target's trigger, the same values
    assert rows(merged, "SELECT COUNT(*) FROM runs WHERE human_model = 'offline' AND top_k = 5")[0][0] == 2
    code, out, err = pxp(capsys, "export", "--db", merged, "--format", "csv", "--table", "round_information", "--out", "-")
    assert code == 0, err
    assert out.splitlines()[0].startswith("run_id,ord,instance_id,session_id,round,entropy_machine")
    assert len(out.splitlines()) == len(stored) + 1
    code, out, err = pxp(capsys, "export", "--db", merged, "--format", "json", "--table", "messages", "--out", "-")
    assert all(m["distribution"] for m in json.loads(out))
