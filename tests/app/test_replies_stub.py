"""Replies shaped like real models', sent through litellm's HTTP path by the OpenAI-compatible stub.

The stub answers as GPT-4o, Claude, Llama, Qwen, Gemini or a reasoning model would (labels in bold,
headings, code fences, prose around the answer, ``<think>`` blocks, JSON); the runs complete with
what each reply says stored in the blackboard, and only a reply that says nothing clear, or both
Yes and No, is asked again.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_harness.protocol_check import assert_run_obeys_protocol
from pxp_harness.stub import Request, StubServer, drug_first, learner
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks import get_task

_PAIR = re.compile(r"<first>\n(.*?)\n</first>\n\n<second>\n(.*?)\n</second>", re.S)


def stub_run(capsys: pytest.CaptureFixture[str], db: Path, stub: StubServer, task: str, *extra: str) -> tuple[int, str]:
    code, out, err = pxp(
        capsys, "run", "--headless", "--task", task, "--db", db, "--model", "openai/stub", "--api-base", stub.url, *extra
    )
    return code, out + err


def machine_messages(board: Blackboard, run_id: int = 1) -> list[dict]:
    return list(
        board.db.query(
            """SELECT m.* FROM messages m JOIN data d ON d.session_id = m.session_id
               WHERE d.run_id = ? AND m.sender = 'machine' ORDER BY d.ord, m.j""",
            [run_id],
        )
    )


# --- the checker ------------------------------------------------------------------------------

#: how real models answer "Are these two ... consistent? Answer Yes or No.", for a Yes (True) or a No
CHECKER_SHAPES: list[Callable[[bool], str]] = [
    lambda yes: f"Judgement: {'Yes' if yes else 'No'}",
    lambda yes: f"**Answer:** {'Yes' if yes else 'No'}",
    lambda yes: "Yes, they are consistent." if yes else "No, they describe different reactions.",
    lambda yes: "Yes.\nYes" if yes else "No.\nNo",
    lambda yes: (
        f"<think>\nThe first names an acylation; is that in the second? No contradiction so far.\n</think>\n\n{'Yes' if yes else 'No'}"
    ),
    lambda yes: f"```\n{'Yes' if yes else 'No'}\n```",
    lambda yes: f"## Verdict\n**{'Yes' if yes else 'No'}**",
    lambda yes: f"Both were compared. The answer is **{'Yes' if yes else 'No'}**.",
    lambda yes: "Consistent." if yes else "Inconsistent.",
]


def consistent(first: str, second: str) -> bool:
    """The stub checker's verdict on a pair: fixed by the texts, so an answer asked again is the same."""
    return zlib.crc32(f"{first}\n{second}".encode()) % 2 == 0


def test_a_checker_answering_judgement_yes_completes_the_run(capsys, db_path: Path) -> None:
    machine = learner("Pathway", drug_first)

    def reply(request: Request) -> str:
        return "Judgement: Yes" if request.is_checker else machine(request)

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "--limit", "3")
    assert code == 0, out
    assert stub.checker_requests()
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)
        agreed = [row[0] for row in board.db.execute("SELECT guard_agree FROM messages WHERE guard_agree IS NOT NULL")]
    assert agreed and all(agreed)  # every "Judgement: Yes" was read as the Yes it is


@pytest.mark.slow  # ten sessions, to serve every shape both ways
def test_checker_answers_shaped_like_real_models_are_read_at_once_as_what_they_say(capsys, db_path: Path) -> None:
    served: list[tuple[int, bool]] = []  # (shape, verdict)
    shapes = {True: 0, False: 0}  # each verdict goes through the shapes in turn, whatever order the questions come in
    lock = threading.Lock()  # the stub answers in threads, and the machine asks two questions at once

    def reply(request: Request) -> str:
        if not request.is_checker:
            # a fresh explanation every time, so that no pair is asked twice in a row unless asked again
            return f"Pathway: CCO.CC(=O)Cl\nExplanation: Stub answer {request.number}: acylation of ethanol."
        first, second = _PAIR.search(request.last_user_text()).groups()
        verdict = consistent(first, second)
        with lock:
            shape = shapes[verdict] % len(CHECKER_SHAPES)
            shapes[verdict] += 1
            served.append((shape, verdict))
        return CHECKER_SHAPES[shape](verdict)

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "--limit", "10")
    assert code == 0, out
    asked = [r.messages for r in stub.checker_requests()]
    assert set(served) == {(shape, yes) for shape in range(len(CHECKER_SHAPES)) for yes in (True, False)}
    assert all(a != b for a, b in itertools.pairwise(asked))  # none asked again
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)
        checked = 0
        for (session_id,) in board.db.execute("SELECT session_id FROM data WHERE run_id = 1").fetchall():
            rows = {m["j"]: m for m in board.db.query("SELECT * FROM messages WHERE session_id = ?", [session_id])}
            for j, m in rows.items():
                if m["guard_agree"] is None:
                    continue
                own = rows[j - 2]["explanation"] if j >= 3 else m["explanation"]
                other = rows[j - 1]["explanation"]
                assert bool(m["guard_agree"]) is (other.strip() == own.strip() or consistent(other, own))
                checked += 1
    assert checked >= len(CHECKER_SHAPES)


def test_an_answer_with_both_or_neither_is_asked_again_and_a_clear_one_is_taken(capsys, db_path: Path) -> None:
    machine = learner("Pathway", drug_first)
    unclear = iter(["Yes or No", "I cannot tell from these two texts."])

    def reply(request: Request) -> str:
        if not request.is_checker:
            return machine(request)
        return next(unclear, "**Answer:** Yes")

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "--limit", "2")
    assert code == 0, out
    first, second, third = (r.messages for r in stub.checker_requests()[:3])
    assert first == second == third  # the same question, asked twice more
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"


def test_a_checker_that_keeps_saying_both_pauses_the_run_and_it_resumes(capsys, db_path: Path) -> None:
    machine = learner("Pathway", drug_first)
    answer = {"checker": "Yes. No."}

    def reply(request: Request) -> str:
        return answer["checker"] if request.is_checker else machine(request)

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "--limit", "2")
        assert code == 1
        assert "answered neither Yes nor No after 3 attempts (it said both): 'Yes. No.'" in out
        assert "pxp run --headless --resume 1" in out
        assert len(stub.checker_requests()) == 3
        with Blackboard.open(db_path, create=False) as board:
            run = board.run(1)
            assert run.status == "paused" and "answered neither Yes nor No" in (run.error or "")

        answer["checker"] = "<think>\nThe two agree on the reactants.\n</think>\n\nJudgement: No"
        code, out, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", db_path)
    assert code == 0, out + err
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)


# --- the machine ------------------------------------------------------------------------------

#: how real models lay out "Pathway: ... / Explanation: ..." (the SMILES as written, the explanation)
DRUG_SHAPES: list[Callable[[str, str], str]] = [
    lambda s, e: f"**Pathway:** {s}\n**Explanation:** {e}",
    lambda s, e: f"**Pathway**: `{s}`\n\n**Explanation**: {e}",
    lambda s, e: f"## Pathway\n```smiles\n{s}\n```\n\n## Explanation\n{e}",
    lambda s, e: f"```\nPathway: {s}\nExplanation: {e}\n```",
    lambda s, e: (
        f"Sure! Here is a feasible single step.\n\nPathway: {s}\nExplanation: {e}\n\nLet me know if you would like other routes."
    ),
    lambda s, e: f"<think>\nPathway: CCO.CCN? No, better:\n</think>\n\nPathway: {s}\nExplanation: {e}",
    lambda s, e: f"1. **Pathway:** {s}\n2. **Explanation:** {e}",
    lambda s, e: f"PATHWAY: {s}\nEXPLANATION: {e}",
    lambda s, e: "Pathway: " + " + ".join(f"`{p}`" for p in s.split(".")) + f"\nExplanation: {e}",
    lambda s, e: "```json\n" + json.dumps({"pathway": s, "explanation": e}, indent=2) + "\n```",
    lambda s, e: f"The C-N bond is the one to break.\n</think>\n\n**Pathway:** {s}\n**Explanation:** {e}",
]
#: reactant sets as a model writes them: charges, stereo, ring closures (none is a demo answer)
DRUG_GUESSES = [
    "O=[N+]([O-])c1ccc(C(=O)O)cc1.CCO",
    "C[C@@H](N)C(=O)O.CC(=O)Cl",
    "BrCc1ccccc1.OC1CCCCC1",
    "[O-][N+](=O)c1ccc(C(=O)Cl)cc1.C/C=C/CO",
]

RAD_SHAPES: list[Callable[[str, str], str]] = [
    lambda y, e: f"**Prediction:** {y}\n**Explanation:** {e}",
    lambda y, e: f"## Prediction\n{y}\n\n## Explanation\n{e}",
    lambda y, e: f"```\nPrediction: {y}\nExplanation: {e}\n```",
    lambda y, e: (
        f"Based on the image, here is my assessment.\n\n**Prediction**: {y}\n\n**Explanation**: {e}\n\n"
        "I hope this helps! Please consult a radiologist for a definitive reading."
    ),
    lambda y, e: f"<think>\nPrediction: Pneumonia? The film says otherwise.\n</think>\nPrediction: {y}\nExplanation: {e}",
    lambda y, e: f"PREDICTION: {y}\nEXPLANATION: {e}",
    lambda y, e: f"1. **Prediction:** {y}\n2. **Explanation:** {e}",
    lambda y, e: json.dumps({"prediction": y, "explanation": e}),
]
#: conditions as a model writes them, and the label each one is
RAD_GUESSES = [
    ("Right-sided pleural effusion", "Pleural Effusion"),
    ("PNTX", "Pneumothorax"),
    ("enlarged heart", "Cardiomegaly"),
    ("Atelectasis", "Atelectasis"),
    ("**Pneumonia**", "Pneumonia"),
]


def shaped(shapes: list, guesses: list[tuple[str, str]], expected: dict[int, tuple[str, str]]) -> Callable[[Request], str]:
    """A stub model answering its n-th request in shape n, with guess n, and a fresh explanation."""
    count = [0]

    def reply(request: Request) -> str:
        if request.is_checker:
            return "Yes"
        count[0] += 1
        written, meant = guesses[count[0] % len(guesses)]
        explanation = f"Stub answer {count[0]}: what supports it, in two sentences. A second one."
        expected[request.number] = (meant, explanation)
        return shapes[count[0] % len(shapes)](written, explanation)

    return reply


@pytest.mark.parametrize(
    ("task", "shapes", "guesses", "limit"),
    [
        ("drug", DRUG_SHAPES, [(s, get_task("drug").normalise(s)) for s in DRUG_GUESSES], "3"),
        ("rad", RAD_SHAPES, RAD_GUESSES, "5"),
    ],
)
def test_machine_replies_shaped_like_real_models_store_their_prediction_and_explanation(
    capsys, db_path: Path, task: str, shapes: list, guesses: list[tuple[str, str]], limit: str
) -> None:
    expected: dict[int, tuple[str, str]] = {}
    with StubServer(reply=shaped(shapes, guesses, expected)) as stub:
        code, out = stub_run(capsys, db_path, stub, task, "--limit", limit)
    assert code == 0, out
    asked = stub.machine_requests()
    assert len(asked) > len(shapes)  # every shape served
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        stored = machine_messages(board)
    assert len(stored) == len(asked)  # every reply read at the first asking
    normalise = get_task(task).normalise  # DRUG: the canonical SMILES set; RAD: the condition
    assert [(normalise(m["prediction"]), m["explanation"]) for m in stored] == [expected[r.number] for r in asked]
