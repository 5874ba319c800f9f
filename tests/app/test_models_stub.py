"""Real litellm HTTP path against the OpenAI-compatible stub: the papers' cases, what was sent, failures."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pxp_harness.protocol_check import assert_run_obeys_protocol
from pxp_harness.stub import Injected, Request, StubServer, drug_first, learner, rad_first
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.main import main
from pxp_tui.tasks.drug.task import SYSTEM_PROMPT as DRUG_PROMPT
from pxp_tui.tasks.drug.task import DrugTask
from pxp_tui.tasks.rad.labels import LABELS
from pxp_tui.tasks.rad.task import SYSTEM_PROMPT as RAD_PROMPT

SECRET = "sk-stub-secret-4f1c9a7be2d84c55"


def pxp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def import_cases(capsys, db: Path, task: str, csv: Path, *extra: str) -> None:
    code, out = pxp(capsys, "import", task, str(csv), "--db", str(db), *extra)
    assert code == 0, out


def stub_run(capsys, db: Path, stub: StubServer, task: str, dataset: str, *extra: str) -> tuple[int, str]:
    return pxp(
        capsys, "run", "--headless", "--task", task, "--dataset", dataset, "--db", str(db),
        "--model", "openai/stub", "--api-base", stub.url, *extra,
    )  # fmt: skip


def file_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


@pytest.mark.slow
def test_rad_run_on_the_papers_cases_sends_every_image_and_stores_parsed_replies(
    capsys, shared_data: Path, db_path: Path, secret_env: None
) -> None:
    import_cases(capsys, db_path, "rad", shared_data / "train_xray_data.csv", "--name", "xray")
    with StubServer(reply=learner("Prediction", rad_first)) as stub:
        code, out = stub_run(capsys, db_path, stub, "rad", "xray")
    assert code == 0, out
    machine = stub.machine_requests()
    board = Blackboard.open(db_path, create=False)
    run = board.run(1)
    assert run.status == "done" and len(run.plan) == 20
    assert_run_obeys_protocol(board, 1)

    # every machine prompt: the papers' system prompt, and this case's X-ray as a data URL at the end
    assert machine and all(r.messages[0] == {"role": "system", "content": r.system} for r in machine)
    assert all(r.system.startswith(RAD_PROMPT) for r in machine)
    for request in machine:
        current = request.messages[-1]["content"]
        assert isinstance(current, list) or "Human (" in current
        assert request.image_urls() and request.image_urls()[-1].startswith("data:image/jpeg;base64,")
    # the context carries the earlier cases' thumbnails: one more image per earlier session
    firsts = [r for r in machine if "Human (" not in r.last_user_text()]
    assert [len(r.image_urls()) for r in firsts] == list(range(1, 21))
    assert "Use the following as context:" in firsts[1].system

    # the replies' predictions and explanations, parsed, are in `messages`, with the prompt's size
    rows = list(board.db.query("SELECT * FROM messages WHERE sender = 'machine' AND j = 1 ORDER BY session_id"))
    expected = [rad_first(r) for r in firsts]
    assert [(m["prediction"], m["explanation"]) for m in rows] == expected
    assert all(m["prediction"] in LABELS for m in rows)
    assert all(m["model"] == "openai/stub" and m["latency_ms"] > 0 for m in rows)
    tokens = [m["prompt_tokens"] for m in rows]
    assert all(t > 0 for t in tokens) and tokens == sorted(tokens) and tokens[-1] > tokens[0]

    # the key reached the server, and nothing else
    assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in stub.requests)
    board.close()
    assert SECRET.encode() not in file_bytes(db_path)
    assert SECRET not in out


@pytest.mark.slow
def test_drug_run_on_the_papers_reactions_completes(capsys, shared_data: Path, db_path: Path, secret_env: None) -> None:
    import_cases(capsys, db_path, "drug", shared_data / "retro.csv")
    sessions = 24  # of the 95 reactions: enough for the context window to slide for 20 sessions
    with StubServer(reply=learner("Pathway", drug_first)) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "retro", "--context", "last:3", "--limit", str(sessions))
    assert code == 0, out
    board = Blackboard.open(db_path, create=False)
    assert board.run(1).status == "done"
    assert_run_obeys_protocol(board, 1)
    machine = stub.machine_requests()
    assert all(r.system.startswith(DRUG_PROMPT) for r in machine)
    assert not any(r.image_urls() for r in machine)
    # a revision carries the chemist's reactants, parsed from the stub's reply
    revised = list(
        board.db.query("""SELECT m.prediction, i.reference_prediction FROM messages m
        JOIN data d ON d.session_id = m.session_id JOIN instances i ON i.id = d.instance_id
        WHERE m.tag = 'REVISE'""")
    )
    assert revised and all(DrugTask().match(r["prediction"], r["reference_prediction"]) for r in revised)
    finished = board.db.execute("SELECT COUNT(*) FROM data WHERE run_id = 1 AND stop_reason IS NOT NULL").fetchone()[0]
    assert finished == sessions
    # --context last:3: the machine's prompt never carries more than three earlier sessions
    firsts = [r for r in machine if "Human (" not in r.last_user_text()]
    assert [sum(m["role"] == "user" and "Target SMILES" in m["content"] for m in r.messages) - 1 for r in firsts] == [
        min(i, 3) for i in range(sessions)
    ]
    board.close()
    assert SECRET.encode() not in file_bytes(db_path)
    assert SECRET not in out


@pytest.mark.slow
def test_failing_every_third_and_rate_limited_every_fifth_the_run_still_completes(
    capsys, shared_data: Path, db_path: Path
) -> None:
    import_cases(capsys, db_path, "rad", shared_data / "val_xray_data.csv", "--name", "xray")
    with StubServer(reply=learner("Prediction", rad_first), fail_every=3, rate_limit_every=5) as stub:
        code, out = stub_run(capsys, db_path, stub, "rad", "xray", "--limit", "12", "--context", "last:4")
    assert code == 0, out
    statuses = [r.status for r in stub.requests]
    assert statuses.count(500) > 5 and statuses.count(429) > 5
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert len(board.run(1).plan) == 12
        assert assert_run_obeys_protocol(board, 1) >= 3 * 12


def test_a_model_that_keeps_failing_pauses_the_run_with_its_cause_and_it_resumes(
    capsys, shared_data: Path, db_path: Path, secret_env: None
) -> None:
    import_cases(capsys, db_path, "drug", shared_data / "few_shot_DRUG.csv", "--name", "few")
    answer, machine_asked, lock = learner("Pathway", drug_first), [0], threading.Lock()

    def reply(request: Request) -> str | Injected:
        # the machine's 3rd to 7th requests fail (counted apart from the checker's, which the machine asks beside
        # its own call): the 3rd and its 3 retries, so the run pauses, then the first asking after the resume
        if not request.is_checker:
            with lock:
                machine_asked[0] += 1
                n = machine_asked[0]
            if n == 3:
                return Injected(status=500, echo_key=True)
            if 4 <= n <= 7:
                return Injected(status=500)
        return answer(request)

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "few")
        assert code == 1
        assert "run 1 paused: openai/stub: server error" in out and "after 4 attempts" in out
        assert "pxp run --headless --resume 1" in out
        with Blackboard.open(db_path, create=False) as board:
            run = board.run(1)
            assert run.status == "paused" and "server error" in (run.error or "")
            before = board.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        assert before > 0

        code, out = pxp(capsys, "run", "--headless", "--resume", "1", "--db", str(db_path))
    assert code == 0, out
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)
    assert SECRET.encode() not in file_bytes(db_path)


def test_a_rejected_key_pauses_at_once_and_the_key_echoed_by_the_server_is_redacted(
    capsys, shared_data: Path, db_path: Path, secret_env: None
) -> None:
    import_cases(capsys, db_path, "drug", shared_data / "few_shot_DRUG.csv", "--name", "few")
    with StubServer(reply=learner("Pathway", drug_first), script={1: Injected(status=401, echo_key=True)}) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "few")
    assert code == 1
    assert len(stub.requests) == 1  # not retried: retrying cannot fix a key
    assert "authentication failed" in out and "[redacted]" in out
    with Blackboard.open(db_path, create=False) as board:
        assert "[redacted]" in board.run(1).error
    assert SECRET not in out
    assert SECRET.encode() not in file_bytes(db_path)


def test_timeouts_are_retried_then_pause(capsys, shared_data: Path, db_path: Path) -> None:
    import_cases(capsys, db_path, "drug", shared_data / "few_shot_DRUG.csv", "--name", "few")
    slow = {1: Injected(delay=1.5), 2: Injected(delay=1.5)}
    with StubServer(reply=learner("Pathway", drug_first), script=slow) as stub:
        code, out = stub_run(capsys, db_path, stub, "drug", "few", "--timeout", "0.3", "--retries", "1")
        assert code == 1 and "timed out" in out and "after 2 attempts" in out
        code, out = pxp(capsys, "run", "--headless", "--resume", "1", "--db", str(db_path))
    assert code == 0, out
    with Blackboard.open(db_path, create=False) as board:
        assert_run_obeys_protocol(board, 1)


def test_unparseable_replies_are_asked_again_then_pause(capsys, shared_data: Path, db_path: Path) -> None:
    import_cases(capsys, db_path, "rad", shared_data / "train_xray_data.csv", "--name", "xray")
    answer, asked = learner("Prediction", rad_first), []

    def reply(request: Request) -> str:  # the machine's 1st answer, and its 4th to 6th, are unreadable
        if not request.is_checker:
            asked.append(request)
            if len(asked) in (1, 4, 5, 6):
                return "I am not sure what this image shows."
        return answer(request)

    with StubServer(reply=reply) as stub:
        code, out = stub_run(capsys, db_path, stub, "rad", "xray", "--limit", "3")
        assert code == 1 and "unparseable reply after 3 attempts" in out
        with Blackboard.open(db_path, create=False) as board:
            first = board.session_messages(1)
            assert first[0].meta["raw"].startswith("Prediction:")  # request 1's garbled reply was asked again
        code, out = pxp(capsys, "run", "--headless", "--resume", "1", "--db", str(db_path))
    assert code == 0, out
    with Blackboard.open(db_path, create=False) as board:
        assert board.run(1).status == "done"
        assert_run_obeys_protocol(board, 1)


@pytest.mark.slow
def test_a_key_from_a_dotenv_file_is_used_and_never_written(
    capsys, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ..conftest import pxp as pxp_process

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    key = "sk-dotenv-only-7d3e21c0a9b84f6e"
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={key}\n", encoding="utf-8")
    db = tmp_path / "sessions.db"
    code, out = pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db), "--name", "few")
    assert code == 0, out  # in this process; the run that reads .env is a process of its own, in that folder
    with StubServer(reply=learner("Pathway", drug_first)) as stub:
        done = pxp_process("run", "--headless", "--task", "drug", "--dataset", "few", "--db", str(db),
                           "--model", "openai/stub", "--api-base", stub.url, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert stub.requests and all(r.headers["authorization"] == f"Bearer {key}" for r in stub.requests)
    assert key not in done.stdout + done.stderr
    assert key.encode() not in file_bytes(db)
