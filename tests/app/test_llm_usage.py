"""What each machine message records of its model call: model, latency, tokens, cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.stub import StubServer, drug_first, learner
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.main import main
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Turn
from pxp_tui.tasks import get_task


async def test_a_priced_model_records_tokens_and_cost() -> None:
    reply = "Pathway: CCO.CC(=O)Cl\nExplanation: Esterification of ethanol with acetyl chloride."
    client = LLMClient("gpt-4o-mini", params={"mock_response": reply})  # litellm's mock: no request sent
    agent = MachineAgent(get_task("drug"), client, Checker(LLMClient("pxp-offline/checker")))
    target = Instance(1, "d", "ethyl-acetate", input="CCOC(C)=O")
    answer = await agent.respond(Turn(1, 1, target, 0, 1, 1, 10, 3, (), ()))
    assert (answer.prediction, answer.meta["model"]) == ("CC(=O)Cl.CCO", "gpt-4o-mini")
    assert answer.meta["prompt_tokens"] > 0 and answer.meta["completion_tokens"] > 0
    assert answer.meta["cost"] > 0  # litellm's local price list knows gpt-4o-mini


def test_a_server_that_reports_no_usage_gets_litellms_token_counts(
    capsys: pytest.CaptureFixture[str], shared_data: Path, db_path: Path
) -> None:
    assert main(["import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path), "--name", "few"]) == 0
    with StubServer(reply=learner("Pathway", drug_first), usage=False) as stub:
        code = main(["run", "--headless", "--task", "drug", "--dataset", "few", "--db", str(db_path),
                     "--model", "openai/stub", "--api-base", stub.url])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    with Blackboard.open(db_path, create=False) as board:
        rows = list(
            board.db.query("SELECT prompt_tokens, completion_tokens, cost FROM messages WHERE sender = 'machine' AND j = 1")
        )
    tokens = [r["prompt_tokens"] for r in rows]
    assert len(tokens) == 5 and tokens == sorted(tokens) and tokens[0] > 50  # the context grows
    assert all(r["completion_tokens"] > 0 and r["cost"] is None for r in rows)  # no price for openai/stub
