"""``--rad-unnamed``: a RAD reply whose prediction names none of the five conditions is asked again (pxp's default, as
any unreadable reply), or kept as written and scored wrong by MATCH (the reference scripts, whose parser takes any text
after "Prediction:"). docs/FIDELITY.md, row rad-unnamed."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from pxp_harness.cli_helpers import pxp
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.config import RunConfig
from pxp_tui.engine import AgentError, Turn
from pxp_tui.protocol import Tag
from pxp_tui.runs.variants import matching
from pxp_tui.tasks import get_task

UNNAMED = "Prediction: Normal chest\nExplanation: The lungs are clear and the heart is of normal size."


def _xray() -> bytes:
    out = BytesIO()
    Image.new("L", (32, 32), 90).save(out, "PNG")
    return out.getvalue()


CASE = Instance(1, "x", "case-1", "train", "", _xray(), "image/png", "Pneumonia", "Patchy opacity.", {})


def _machine(rule: str) -> MachineAgent:
    task = matching(get_task("rad"), RunConfig(task="rad", rad_unnamed=rule))
    model = LLMClient("gpt-4o-mini", params={"mock_response": UNNAMED}, retry_delay=0)  # litellm's mock: nothing sent
    return MachineAgent(task, model, Checker(LLMClient("gpt-4o-mini", params={"mock_response": "No"})))


async def test_a_reply_naming_no_condition_is_asked_again_by_default_and_kept_as_wrong_by_the_reference_rule() -> None:
    opening = Turn(1, 1, CASE, 0, 1, 1, 10, 3, (), [])
    with pytest.raises(AgentError, match=r"unparseable reply after 3 attempts .*names none of Atelectasis"):
        await _machine("ask-again").respond(opening)
    machine = _machine("wrong")
    reply = await machine.respond(opening)
    assert (reply.tag, reply.prediction) == (Tag.INIT, "Normal chest")  # kept as written, once asked
    assert not machine.task.match(reply.prediction, CASE.reference_prediction)  # and MATCH scores it wrong


def test_the_rule_is_recorded_with_the_run_and_refused_for_another_task(capsys, db_path: Path) -> None:
    code, out, err = pxp(capsys, "run", "--headless", "--task", "rad", "--model", "offline", "--limit", "1", "--n", "2",
                         "--rad-unnamed", "wrong", "--quiet", "--db", db_path)  # fmt: skip
    assert code == 0, err
    assert ", a reply naming no condition: wrong," in out.splitlines()[0]
    with Blackboard.open(db_path, create=False) as board:
        config = board.runs()[-1].config
    assert config.rad_unnamed == "wrong" and config.effective is not None and config.effective["rad_unnamed"] == "wrong"
    code, _, err = pxp(capsys, "run", "--headless", "--task", "drug", "--rad-unnamed", "wrong", "--db", db_path)
    assert code == 2 and "--rad-unnamed wrong is a RAD option, not one of the drug task" in err
