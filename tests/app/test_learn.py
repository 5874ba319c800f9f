"""The LEARN gate and machine performance on held-out splits, stored in ``evaluations``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import digest, pxp
from pxp_harness.protocol_check import assert_run_obeys_protocol
from pxp_harness.stub import Injected, Request, StubServer, drug_first, learner
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks.drug import chem


@pytest.fixture
def retro(capsys, shared_data: Path, db_path: Path) -> Path:
    code, _, err = pxp(
        capsys, "import", "drug", str(shared_data / "retro.csv"), "--db", str(db_path), "--seeded-split", "60/20/20"
    )
    assert code == 0, err
    return db_path


@pytest.mark.slow
def test_the_gate_keeps_a_sessions_context_only_if_validation_accuracy_does_not_drop(capsys, retro: Path) -> None:
    code, out, err = pxp(capsys, "run", "--headless", "--task", "drug", "--dataset", "retro", "--db", str(retro),
                         "--limit", "8", "--learn-gate", "--evaluate", "--learn-metric", "match",
                         "--learn-rule", "does-not-drop")  # fmt: skip
    assert code == 0, err
    assert "val  start" in out and "context not kept" in out and "test end" in out
    with Blackboard.open(retro, create=False) as board:
        assert_run_obeys_protocol(board, 1)
        rows = list(board.db.query("SELECT * FROM evaluations WHERE run_id = 1 ORDER BY id"))
        sessions = list(board.db.query("SELECT session_id, ord, context_kept FROM data WHERE run_id = 1 ORDER BY ord"))
        priors = {
            r["session_id"]: json.loads(r["context"])["prior"]["sessions"]
            for r in board.db.query("SELECT session_id, context FROM context WHERE j = 1")
        }
        val_size, test_size = len(board.instance_ids("retro", "val")), len(board.instance_ids("retro", "test"))
    assert [(r["phase"], r["split"]) for r in rows[:2]] == [("start", "val"), ("start", "test")]
    assert (rows[-1]["phase"], rows[-1]["split"]) == ("end", "test")
    assert all(r["instances"] == (val_size if r["split"] == "val" else test_size) for r in rows)

    gates = [r for r in rows if r["phase"] == "session" and r["split"] == "val"]
    assert [g["session_id"] for g in gates] == [s["session_id"] for s in sessions]
    reference = rows[0]["correct"]
    kept_so_far = 0
    for gate, session in zip(gates, sessions, strict=True):
        assert gate["kept"] == (gate["correct"] >= reference) == session["context_kept"]
        assert priors[session["session_id"]] == kept_so_far  # the machine saw only the kept sessions
        assert gate["context_sessions"] == kept_so_far + 1  # measured with this session added
        tests = [r for r in rows if r["phase"] == "session" and r["split"] == "test" and r["session_id"] == session["session_id"]]
        if gate["kept"]:
            reference, kept_so_far = gate["correct"], kept_so_far + 1
            assert len(tests) == 1 and tests[0]["context_sessions"] == kept_so_far
        else:
            assert tests == []
    assert {bool(g["kept"]) for g in gates} == {True, False}
    assert rows[-1]["context_sessions"] == kept_so_far

    code, out, _ = pxp(capsys, "evaluations", "--db", str(retro), "--run", "1")
    assert code == 0 and "after 1" in out and "accuracy" in out


def test_held_out_splits_must_exist_and_not_be_the_sessions(capsys, shared_data: Path, db_path: Path) -> None:
    pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path), "--name", "few")
    code, _, err = pxp(capsys, "run", "--headless", "--task", "drug", "--dataset", "few", "--db", str(db_path), "--learn-gate")
    assert code == 2 and "--learn-gate needs a val split, and dataset 'few' has none" in err
    pxp(capsys, "import", "drug", str(shared_data / "retro.csv"), "--db", str(db_path), "--seeded-split", "60/20/20")
    code, _, err = pxp(
        capsys, "run", "--headless", "--task", "drug", "--dataset", "retro", "--db", str(db_path), "--evaluate", "--split", "test"
    )
    assert code == 2 and "cannot run on it" in err
    code, _, err = pxp(
        capsys,
        "run",
        "--headless",
        "--task",
        "drug",
        "--dataset",
        "retro",
        "--db",
        str(db_path),
        "--learn-gate",
        "--context",
        "none",
    )
    assert code == 2 and "--context all or last:N" in err


@pytest.mark.slow
def test_a_gate_interrupted_by_the_model_resumes_without_measuring_twice(capsys, retro: Path) -> None:
    with Blackboard.open(retro, create=False) as board:
        val = {chem.canonical(i.input) for i in board.instances(board.instance_ids("retro", "val"))}
    answer, failing = learner("Pathway", drug_first), [True]

    def reply(request: Request) -> str | Injected:
        text = request.last_user_text()
        target = text.split("Target SMILES: ", 1)[-1].split("\n", 1)[0] if "Target SMILES: " in text else None
        in_context = sum("Target SMILES" in str(m["content"]) for m in request.messages) - 1
        if failing[0] and not request.is_checker and chem.canonical(target or "") in val and in_context >= 1:
            return Injected(status=503)  # the model is down while the gate measures after session 1
        return answer(request)

    with StubServer(reply=reply) as stub:
        args = ["run", "--headless", "--task", "drug", "--dataset", "retro", "--db", str(retro), "--limit", "3",
                "--model", "openai/stub", "--api-base", stub.url, "--retries", "0", "--learn-gate", "--evaluate"]  # fmt: skip
        code, _, err = pxp(capsys, *args)
        assert code == 1 and "paused" in err
        with Blackboard.open(retro, create=False) as board:
            assert board.run(1).status == "paused"
            assert board.db.execute("SELECT COUNT(*) FROM data WHERE stop_reason IS NOT NULL").fetchone()[0] == 1
            assert board.db.execute("SELECT context_kept FROM data").fetchone()[0] is None
        failing[0] = False
        code, _out, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", str(retro))
    assert code == 0, err
    with Blackboard.open(retro, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)
        phases = [(r["phase"], r["split"], r["session_id"]) for r in board.db.query("SELECT * FROM evaluations ORDER BY id")]
        kept = [r[0] for r in board.db.execute("SELECT context_kept FROM data ORDER BY ord")]
    assert phases.count(("start", "val", None)) == 1 and phases.count(("start", "test", None)) == 1
    gates = [p for p in phases if p[:2] == ("session", "val")]
    assert len(gates) == len(set(gates)) == 3
    assert None not in kept and phases[-1][:2] == ("end", "test")


def test_options_that_cannot_run_leave_the_blackboard_as_it_was(capsys, shared_data: Path, db_path: Path) -> None:
    pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path), "--name", "few")
    before = digest(db_path)
    code, _, err = pxp(
        capsys, "run", "--headless", "--task", "drug", "--db", str(db_path), "--evaluate"
    )  # the demo: no test split
    assert code == 2 and "dataset 'demo-drug' has none" in err
    assert digest(db_path) == before
    with Blackboard.open(db_path, create=False) as board:
        assert not board.has_dataset("demo-drug") and board.run_ids() == []


def test_measurements_travel_with_their_runs_when_blackboards_are_merged(capsys, retro: Path, tmp_path: Path) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--task", "drug", "--dataset", "retro", "--db", str(retro),
                       "--limit", "3", "--learn-gate", "--evaluate", "--quiet")  # fmt: skip
    assert code == 0, err
    out = tmp_path / "merged.db"
    pxp(capsys, "run", "--headless", "--task", "drug", "--db", str(out), "--limit", "2", "--quiet")  # ids to shift past
    code, _, err = pxp(capsys, "merge", str(out), str(retro))
    assert code == 0, err

    def measured(path: Path) -> list[tuple]:
        with Blackboard.open(path, create=False) as board:
            sql = """SELECT e.phase, e.split, d.ord, e.correct, e.agreed, e.kept, i.key, t.prediction, t.correct
                     FROM evaluations e JOIN runs r ON r.id = e.run_id LEFT JOIN data d ON d.session_id = e.session_id
                     JOIN evaluation_items t ON t.evaluation_id = e.id JOIN instances i ON i.id = t.instance_id
                     WHERE r.task = 'drug' AND r.dataset = 'retro' ORDER BY e.id, i.key"""
            return [tuple(r) for r in board.db.execute(sql)]

    assert measured(out) == measured(retro) and len(measured(retro)) > 50


def test_the_gates_decision_under_each_rule() -> None:
    """The journal: kept only if the accuracy improves; the reference: kept unless it drops; nothing to compare
    with (the reference's first session): kept."""
    from pxp_tui.runs.learn import keeps

    assert keeps(5, 4, "improves") and not keeps(4, 4, "improves") and not keeps(3, 4, "improves")
    assert keeps(5, 4, "does-not-drop") and keeps(4, 4, "does-not-drop") and not keeps(3, 4, "does-not-drop")
    assert keeps(0, None, "improves") and keeps(0, None, "does-not-drop")


@pytest.mark.parametrize(
    ("metric", "rule", "first"), [("match-and-agree", "improves", "measure"), ("match", "does-not-drop", "keep")]
)
def test_the_gate_applies_the_chosen_metric_rule_and_first_session(capsys, db_path: Path, metric, rule, first) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--db", str(db_path), "--limit", "5", "--quiet",
                       "--learn-gate", "--learn-metric", metric, "--learn-rule", rule, "--learn-first", first)  # fmt: skip
    assert code == 0, err
    score = "both" if metric == "match-and-agree" else "correct"
    with Blackboard.open(db_path, create=False) as board:
        rows = list(board.db.query("SELECT * FROM evaluations WHERE run_id = 1 AND split = 'val' ORDER BY id"))
        kept = [r["context_kept"] for r in board.db.query("SELECT context_kept FROM data WHERE run_id = 1 ORDER BY ord")]
        effective = board.run(1).config.effective
    assert effective is not None and effective["learn"] == {"metric": metric, "rule": rule, "first": first}
    starts = [r for r in rows if r["phase"] == "start"]
    gates = [r for r in rows if r["phase"] == "session"]
    assert len(starts) == (1 if first == "measure" else 0)  # the reference measures no start
    baseline = starts[0][score] if starts else None
    for gate, decided in zip(gates, kept, strict=True):
        improved = baseline is None or (gate[score] > baseline if rule == "improves" else gate[score] >= baseline)
        assert bool(gate["kept"]) == improved == bool(decided)
        if gate["kept"]:
            baseline = gate[score]
    if first == "keep":
        assert gates[0]["kept"] == 1
