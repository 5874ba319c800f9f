"""SMILES too large for RDKit (a 20,000-atom chain kills it with SIGSEGV) are refused in one line before RDKit
reads them, wherever they come from: a dataset, a model's reply, the expert's field. What RDKit reads runs
in a worker process: a crash or a runaway there is a refusal, not the end of pxp."""

from __future__ import annotations

import csv
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.app_helpers import expert_turn, live_app, messages, session_screen, wait_for
from pxp_harness.internals import notifications
from pxp_harness.stub import StubServer, learner
from pxp_tui.app.session.states import SessionState
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks.drug import chem, limits, reader
from pxp_tui.tasks.drug.task import DrugTask
from pxp_tui.tasks.isolated import IsolatedError, Worker

from ..conftest import pxp

CHAIN = "C" * 20_000  # RDKit's canonical SMILES of it overflows the stack (SIGSEGV)
NESTED = "C(" * 20_000 + "C" + ")" * 20_000
SHORT_BUT_HEAVY = "C" * 1_200  # within the character limit, over the atom limit
REAL_LARGE = {  # real molecules far larger than the papers' (which have at most 52 atoms)
    "vancomycin": "CC1C(C(CC(O1)OC2C(C(C(OC2OC3=C4C=C5C=C3OC6=C(C=C(C=C6)C(C(C(=O)NC(C(=O)NC5C(=O)NC7C8=CC(=C(C=C8)O)"
    "C9=C(C=C(C=C9O)O)C(NC(=O)C(C(C1=CC(=C(O4)C=C1)Cl)O)NC7=O)C(=O)O)CC(=O)N)NC(=O)C(CC(C)C)NC)O)Cl)CO)O)O)(C)N)O",
    "fullerene C60": "c12c3c4c5c1c1c6c7c2c2c8c3c3c9c4c4c%10c5c5c1c1c6c6c%11c7c2c2c7c8c3c3c8c9c4c4c9c%10c5c5c1c1c6c6c%11"
    "c2c2c7c3c3c8c4c4c9c5c1c1c6c2c3c41",
    "cyclosporin": "CCC1C(=O)N(CC(=O)N(C(C(=O)NC(C(=O)N(C(C(=O)NC(C(=O)NC(C(=O)N(C(C(=O)N(C(C(=O)N(C(C(=O)N(C(C(=O)N1)"
    "C(C(C)CC=CC)O)C)C(C)C)C)CC(C)C)C)CC(C)C)C)C)C)CC(C)C)C)C(C)C)CC(C)C)C)C",
}


def one_line(text: str, pattern: str) -> str:
    found = [line for line in text.splitlines() if pattern in line]
    assert len(found) == 1, text
    return found[0]


# -- the limits -------------------------------------------------------------------------------------
def test_every_real_molecule_is_within_the_limits_and_pathological_ones_are_not(shared_data: Path) -> None:
    files = [shared_data / "retro.csv", shared_data / "few_shot_DRUG.csv"]
    smiles = [cell for path in files for row in csv.DictReader(path.open()) for cell in (row["input"], row["output"])]
    smiles += [cell for row in DrugTask().demo_rows() for cell in (row.input, row.reference_prediction)]
    assert len(smiles) > 100
    assert [s for s in smiles if limits.problem(s)] == []
    assert all(chem.canonical(s) for s in REAL_LARGE.values())  # admitted, and RDKit reads them
    assert limits.problem(CHAIN) == "20,000 characters, over the limit of 5,000"
    assert limits.problem(SHORT_BUT_HEAVY) == "1,200 atoms, over the limit of 500"
    assert limits.problem("C(" * 150 + "C" + ")" * 150) == "branches nested 150 deep, over the limit of 100"
    assert limits.problem("".join(f"C%({i})" for i in range(300))) == "150 ring closures, over the limit of 100"
    assert limits.measure("[13CH3:1][C@@H](Cl)c1ccccc1") == (9, 1, 1)  # a bracket atom is one atom


def test_a_smiles_over_a_limit_never_reaches_rdkit(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    call = reader.WORKER.call

    def counted(function: str, *args: object, **kwargs: object) -> object:
        asked.extend(a for a in args if isinstance(a, str))
        return call(function, *args, **kwargs)

    monkeypatch.setattr(reader.WORKER, "call", counted)
    monkeypatch.setattr(reader, "_READ", {})  # nothing read before, by another test
    for smiles in (CHAIN, NESTED, SHORT_BUT_HEAVY):
        assert chem.canonical(smiles) is None and chem.canonical_parts(f"CCO.{smiles}") is None
        assert chem.smiles_in(f"{smiles} + OCC") == ["CCO"]  # the words within the limits are read
    assert (
        DrugTask().validate_prediction(f"CCO.{SHORT_BUT_HEAVY}") == "too large for a SMILES: 1,203 atoms, over the limit of 500"
    )
    assert asked == ["OCC"]  # RDKit read only the small molecule


# -- the worker process -----------------------------------------------------------------------------
def test_a_crash_or_a_runaway_in_the_worker_is_an_error_and_the_next_call_works() -> None:
    worker = Worker(timeout=5.0, name="test worker")
    try:
        pid = worker.call("os:getpid")
        assert pid != os.getpid()
        with pytest.raises(IsolatedError, match=r"crashed \(SIGSEGV\)"):
            worker.call("os:kill", pid, signal.SIGSEGV)
        with pytest.raises(IsolatedError, match=r"gave no answer within 0.5 s"):
            worker.call("time:sleep", 30, timeout=0.5)
        with pytest.raises(IsolatedError, match="ValueError"):
            worker.call("builtins:int", "not a number")
        assert worker.call("builtins:len", "CCO") == 3  # a new worker, each time one was lost
    finally:
        worker.close()


@pytest.mark.slow
def test_rdkit_crashing_on_a_smiles_is_a_refusal_and_pxp_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits lifted: RDKit dies on the 20,000-atom chain, in its worker; this process is untouched."""
    monkeypatch.setattr(limits, "MAX_CHARACTERS", 10**6)
    monkeypatch.setattr(limits, "MAX_ATOMS", 10**6)
    monkeypatch.setattr(reader.WORKER, "timeout", 600)  # under load it may take a minute to crash
    monkeypatch.setattr(reader, "_READ", {})
    refusal = chem.refusal(CHAIN)
    assert refusal is not None and "RDKit failed on 'CCCC" in refusal and "crashed (SIGSEGV)" in refusal, refusal
    assert chem.canonical("OCC") == "CCO"


# -- where SMILES come from -------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "named"),
    [(CHAIN, "20,000 characters, over the limit of 5,000"), (SHORT_BUT_HEAVY, "1,200 atoms, over the limit of 500")],
    ids=["chain", "atoms"],
)
def test_import_of_a_huge_smiles_says_so_in_one_line_and_imports_nothing(tmp_path: Path, target: str, named: str) -> None:
    data = tmp_path / "big.csv"
    data.write_text(f"output,input,explanation\nCCO.CC(=O)Cl,{target},why\nCCO,CC(=O)OCC,esterification\n", encoding="utf-8")
    db = tmp_path / "sessions.db"
    done = pxp("import", "drug", str(data), "--db", str(db))
    assert done.returncode == 2, done.stderr  # not -11 (SIGSEGV)
    assert one_line(done.stderr, "nothing imported").endswith(f"line 2: SMILES too large in input: {named}")
    assert len(done.stderr) < 300 and "Traceback" not in done.stderr
    if db.exists():
        with sqlite3.connect(db) as outside:
            assert outside.execute("SELECT COUNT(*) FROM instances").fetchone() == (0,)


@pytest.mark.slow
def test_a_reply_with_a_huge_smiles_is_unparseable_asked_again_then_the_run_pauses_and_resumes(
    tmp_path: Path, shared_data: Path
) -> None:
    db = tmp_path / "sessions.db"
    assert pxp("import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db), "--name", "few").returncode == 0
    huge = {"on": True}
    good = learner("Pathway", lambda request: ("CCO.CC(=O)Cl", "Acylation of ethanol."))

    def reply(request):
        if huge["on"] and not request.is_checker:
            return f"Pathway: {NESTED}\nExplanation: a very long chain."
        return good(request)

    with StubServer(reply=reply) as stub:
        run = ["run", "--headless", "--task", "drug", "--dataset", "few", "--db", str(db), "--limit", "2"]
        done = pxp(*run, "--model", "openai/stub", "--api-base", stub.url)
        assert done.returncode == 1, done.stdout + done.stderr
        line = one_line(done.stdout + done.stderr, "unparseable reply after 3 attempts")
        assert "the pathway holds a SMILES too large: 60,001 characters, over the limit of 5,000" in line
        assert len(line) < 400 and "Traceback" not in done.stderr
        assert len(stub.machine_requests()) == 3
        with Blackboard.open(db, readonly=True) as board:
            assert board.run(1).status == "paused"
        huge["on"] = False  # the model answers sensibly now: the run resumes where it paused, and finishes
        resumed = pxp("run", "--headless", "--resume", "1", "--db", str(db))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    with Blackboard.open(db, readonly=True) as board:
        assert board.run(1).status == "done"


async def test_a_huge_smiles_pasted_into_the_field_is_refused_in_one_line_and_the_session_goes_on(db_path: Path) -> None:
    from textual import events
    from textual.widgets import Input

    async with live_app(db_path, limit=1) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        field = screen.query_one("#answer-prediction", Input)
        field.focus()
        field.post_message(events.Paste(f"CCO.{CHAIN}"))
        check = screen.query_one("#prediction-check")
        await wait_for(pilot, lambda: "too large" in str(check.render()), "the field's verdict")
        assert "too large for a SMILES: 20,004 characters, over the limit of 5,000" in str(check.render())
        await pilot.press("ctrl+s")
        refused = await wait_for(pilot, lambda: [n for n in notifications(app) if "too large" in n])
        assert refused == ["too large for a SMILES: 20,004 characters, over the limit of 5,000"]
        assert screen.state is SessionState.HUMAN and len(messages(db_path, run_id)) == 1  # nothing sent, the session goes on
        field.value = "CCO.CC(=O)Cl"
        await wait_for(pilot, lambda: "well formed" in str(check.render()), "the field's verdict on a real answer")
        assert session_screen(app) is screen


def test_a_drawing_that_crashes_rdkit_shows_no_picture_and_the_next_one_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from pxp_tui.tasks.drug import drawer

    with monkeypatch.context() as patched:
        patched.setattr(drawer, "_DRAW", "os")
        assert drawer._draw("abort") is None  # RDKit's drawing worker died (SIGABRT): no picture
    drawn = drawer.molecule("CC(=O)Nc1ccc(O)cc1", (320, 200))
    assert isinstance(drawn, bytes) and drawn.startswith(b"\x89PNG")
    assert drawer.molecule(CHAIN, (320, 200)) is None  # over the limits: not drawn, not even sent
