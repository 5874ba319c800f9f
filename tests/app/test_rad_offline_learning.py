"""The offline RAD baseline on the bundled phantoms learns from its context, as the evaluation tables show."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.protocol_check import assert_run_obeys_protocol
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.main import main


def halves(values: list[float]) -> tuple[float, float]:
    middle = len(values) // 2
    return sum(values[:middle]) / middle, sum(values[middle:]) / (len(values) - middle)


def run_demo(capsys: pytest.CaptureFixture[str], db: Path, *extra: str) -> Blackboard:
    code = main(["run", "--headless", "--task", "rad", "--db", str(db), "--evaluate", "--quiet", *extra])
    assert code == 0, capsys.readouterr().err
    return Blackboard.open(db, create=False)


@pytest.mark.slow
def test_the_baseline_improves_as_its_context_grows(capsys, db_path: Path) -> None:
    with run_demo(capsys, db_path) as board:
        assert_run_obeys_protocol(board, 1)
        assert len(board.run(1).plan) == 20  # the phantoms' train split
        sessions = [r[0] for r in board.db.execute("SELECT correct FROM session_performance WHERE run_id = 1 ORDER BY ord")]
        tests = list(board.db.query("SELECT * FROM evaluations WHERE run_id = 1 AND split = 'test' ORDER BY id"))
    # the machine's first answer in each session: right more often in the second half than the first
    first, second = halves([float(c) for c in sessions])
    assert second > first
    # the test split (10 phantoms), measured at the start, after every session, and at the end
    assert [t["phase"] for t in tests] == ["start", *["session"] * 20, "end"]
    assert [t["context_sessions"] for t in tests] == [0, *range(1, 21), 20]
    early, late = halves([t["p_correct"] for t in tests if t["phase"] == "session"])
    assert late > early
    assert tests[-1]["p_correct"] > tests[0]["p_correct"]


@pytest.mark.slow
def test_without_a_context_it_does_not_learn(capsys, db_path: Path) -> None:
    with run_demo(capsys, db_path, "--context", "none") as board:
        tests = [r[0] for r in board.db.execute("SELECT p_correct FROM evaluations WHERE run_id = 1 ORDER BY id")]
        answers = {r[0] for r in board.db.execute("SELECT machine_prediction FROM session_performance WHERE run_id = 1")}
    assert len(tests) == 22 and len(set(tests)) == 1  # the same prior answer every time
    assert answers == {"Atelectasis"}
