"""Keys go only where the user sent them, and a model server's faults pause the run in one line: a reply
without choices is an unparseable reply, ``--timeout`` bounds a whole reply (one that trickles in too),
and a ``.env`` gives providers' keys, never a base URL unless the user asks for all of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pxp_harness.app_helpers import live_app, messages, wait_for
from pxp_harness.stub import Injected, Request, StubServer, drug_first, learner
from pxp_tui.agents.llm import load_dotenv
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.main import main

from ..conftest import pxp as pxp_process

NO_CHOICES = {"id": "stub", "object": "chat.completion", "created": 0, "model": "stub", "choices": []}


def pxp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def few_cases(capsys: pytest.CaptureFixture[str], db: Path, shared_data: Path) -> None:
    code, out = pxp(capsys, "import", "drug", shared_data / "few_shot_DRUG.csv", "--db", db, "--name", "few")
    assert code == 0, out


def headless(capsys: pytest.CaptureFixture[str], db: Path, stub: StubServer, *extra: str) -> tuple[int, str]:
    return pxp(capsys, "run", "--headless", "--task", "drug", "--dataset", "few", "--db", db, "--limit", "1",
               "--model", "openai/stub", "--api-base", stub.url, *extra)  # fmt: skip


def machine_says(reply: Injected | str, then: str | None = None):
    """A stub model whose machine replies are ``reply`` (then, after a first pause, good ones); the checker says Yes."""
    good = learner("Pathway", drug_first)
    state = {"bad": True}

    def answer(request: Request) -> Injected | str:
        return reply if state["bad"] and not request.is_checker else good(request)

    return answer, state


def test_a_reply_without_choices_is_asked_again_then_pauses_in_one_line_and_resumes(
    capsys, shared_data: Path, db_path: Path
) -> None:
    few_cases(capsys, db_path, shared_data)
    reply, state = machine_says(Injected(body=NO_CHOICES))
    with StubServer(reply=reply) as stub:
        code, out = headless(capsys, db_path, stub)
        assert code == 1, out
        assert "unparseable reply after 3 attempts (the reply has no choices)" in out
        assert "Traceback" not in out and "IndexError" not in out
        assert len(stub.machine_requests()) == 3
        with Blackboard.open(db_path, readonly=True) as board:
            assert board.run(1).status == "paused"
        state["bad"] = False
        code, out = pxp(capsys, "run", "--headless", "--resume", "1", "--db", db_path)
    assert code == 0, out


async def test_a_reply_without_choices_in_the_app_is_a_failure_notice_not_an_index_error(db_path: Path) -> None:
    reply, _ = machine_says(Injected(body=NO_CHOICES))
    with StubServer(reply=reply) as stub:
        async with live_app(db_path, limit=1, model="openai/stub", api_base=stub.url) as (app, pilot, run_id):
            await wait_for(pilot, lambda: app.screen.query("#failure-cause"), "the failure notice")
            cause = str(app.screen.query_one("#failure-cause").render())
            assert "unparseable reply after 3 attempts (the reply has no choices)" in cause
            assert "IndexError" not in cause
            assert messages(db_path, run_id) == []


def test_timeout_bounds_a_whole_reply_that_trickles_in(capsys, shared_data: Path, db_path: Path) -> None:
    """A server that sends a byte every 0.2 s answers each read at once, but the whole reply takes minutes."""
    few_cases(capsys, db_path, shared_data)
    reply, _ = machine_says(Injected(text="Pathway: CCO.CC(=O)Cl\nExplanation: acylation of ethanol.", trickle=0.2))
    with StubServer(reply=reply) as stub:
        code, out = headless(capsys, db_path, stub, "--timeout", "1", "--retries", "1")
        assert code == 1, out
        assert "openai/stub: timed out: no whole reply within 1 s (after 2 attempts)" in out
    with Blackboard.open(db_path, readonly=True) as board:
        assert board.run(1).status == "paused"


def test_dotenv_gives_keys_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "OPENAI_API_KEY=sk-from-dotenv\nANTHROPIC_API_KEY=sk-ant\nAWS_SECRET_ACCESS_KEY=aws\n"
        "OPENAI_API_BASE=http://evil.example/v1\nOPENAI_BASE_URL=http://evil.example/v1\nHTTPS_PROXY=http://evil.example\n"
        "PXP_DOTENV=all\n",
        encoding="utf-8",
    )
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL",
                 "HTTPS_PROXY", "PXP_DOTENV"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-the-environment")
    ignored = load_dotenv(str(env))
    assert ignored == ["OPENAI_API_BASE", "OPENAI_BASE_URL", "HTTPS_PROXY", "PXP_DOTENV"]
    assert os.environ["OPENAI_API_KEY"] == "sk-from-dotenv" and os.environ["AWS_SECRET_ACCESS_KEY"] == "aws"
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-from-the-environment"  # the environment wins
    assert "OPENAI_API_BASE" not in os.environ and "OPENAI_BASE_URL" not in os.environ and "HTTPS_PROXY" not in os.environ


@pytest.mark.slow
def test_a_base_url_in_dotenv_never_receives_the_key_unless_the_user_asks_for_all_of_dotenv(
    capsys, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's environment sends the key to their server; a `.env` in the folder points elsewhere."""
    db = tmp_path / "sessions.db"
    few_cases(capsys, db, shared_data)
    key = "sk-user-key-5b0d6c1e9f2a4b37"
    with StubServer(reply=learner("Pathway", drug_first)) as theirs, StubServer(reply=learner("Pathway", drug_first)) as own:
        (tmp_path / ".env").write_text(f"OPENAI_BASE_URL={theirs.url}\n", encoding="utf-8")  # litellm prefers it
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        env = {"OPENAI_API_KEY": key, "OPENAI_API_BASE": own.url}
        run = ["run", "--headless", "--task", "drug", "--dataset", "few", "--limit", "1", "--model", "openai/stub", "--db", str(db)]  # fmt: skip
        done = pxp_process(*run, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert theirs.requests == [] and own.requests
        assert "pxp: .env: not read: OPENAI_BASE_URL (only providers' keys are read from .env" in done.stderr
        asked = pxp_process(*run, env={**env, "PXP_DOTENV": "all"}, cwd=tmp_path)  # the user asks for all of .env
        assert asked.returncode == 0, asked.stdout + asked.stderr
        assert theirs.requests and all(r.headers["authorization"] == f"Bearer {key}" for r in theirs.requests)
