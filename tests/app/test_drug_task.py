"""The DRUG task: prompts, parsing what LLMs actually write, MATCH on canonical SMILES sets."""

from __future__ import annotations

import pytest

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, ParseError, Turn
from pxp_tui.protocol import Sender, Tag
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task

TASK = get_task("drug")
register_offline_models(TASK)  # pxp-offline/drug, as a run registers it
PARACETAMOL = Instance(id=1, dataset="d", key="paracetamol", input="CC(=O)Nc1ccc(O)cc1", meta={"name": "Paracetamol"})


@pytest.mark.parametrize(
    "reply",
    [
        "Pathway: CC(=O)OC(C)=O.Nc1ccc(O)cc1\nExplanation: N-acetylation of 4-aminophenol.",
        "Explanation: N-acetylation of 4-aminophenol.\nPathway: Nc1ccc(O)cc1.CC(=O)OC(C)=O",
        "**Pathway:** `Nc1ccc(O)cc1` + `CC(=O)OC(C)=O`\n\n**Explanation:** N-acetylation of 4-aminophenol.",
        "Sure, here is my analysis.\n\n### Pathway\nCC(=O)Nc1ccc(O)cc1 >> CC(=O)OC(C)=O.Nc1ccc(O)cc1\n\n"
        "### Explanation\nN-acetylation of 4-aminophenol.\n\nLet me know if you need more.",
        "Prediction: 4-aminophenol (Nc1ccc(O)cc1) and acetic anhydride (CC(=O)OC(C)=O)\n"
        "Explanation: N-acetylation of 4-aminophenol.",
        "1. **Starting materials**: Nc1ccc(O)cc1, CC(=O)OC(C)=O\n2. **Reasoning**: N-acetylation of 4-aminophenol.",
    ],
)
def test_parse_tolerates_what_llms_write(reply: str) -> None:
    prediction, explanation = TASK.parse(reply, PARACETAMOL)
    assert TASK.match(prediction, "Nc1ccc(O)cc1.CC(=O)OC(C)=O")
    assert explanation.startswith("N-acetylation of 4-aminophenol")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("I cannot help with that.", "Pathway"),
        ("Pathway: CCO.CC(=O)O", "Explanation"),
        ("Pathway: an amine and an acid\nExplanation: amide coupling", "no valid SMILES"),
    ],
)
def test_unreadable_replies_say_why(reply: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        TASK.parse(reply, PARACETAMOL)


def test_match_is_equality_of_canonical_sets_not_overlap() -> None:
    assert TASK.match("CCO.CC(=O)O", "OC(C)=O.OCC")  # order and spelling do not matter
    assert not TASK.match("CCO.CC(=O)O", "CCO")  # one molecule in common is not a match
    assert not TASK.match("CCO.CC(=O)O", "CCO.CC(=O)O.O")
    assert TASK.match("CCO.CCO", "CCO")  # a set


def test_invalid_smiles_never_crash_and_never_match_valid_ones() -> None:
    assert not TASK.match("C1CC", "CCC")
    assert TASK.validate_prediction("CCO.C1CC") == "not valid SMILES: C1CC"
    assert TASK.validate_prediction("CCO.CC(=O)O") is None
    assert TASK.normalise("not smiles").startswith("invalid:")


def test_describe_gives_formula_and_weight() -> None:
    info = TASK.describe(PARACETAMOL)
    assert info["name"] == "Paracetamol" and info["formula"] == "C8H9NO2"
    assert info["weight"].startswith("151.")


def turn(j: int, history: tuple[Message, ...] = ()) -> Turn:
    return Turn(1, 1, PARACETAMOL, 0, 1, j, 10, 3, history, [])


def test_prompt_follows_the_papers_example() -> None:
    from pxp_tui.agents.checker import Checker
    from pxp_tui.agents.llm import LLMClient
    from pxp_tui.agents.machine import MachineAgent

    machine = MachineAgent(TASK, LLMClient("pxp-offline/drug"), Checker(LLMClient("pxp-offline/checker")))
    first = machine.prompt(turn(1))
    assert first[0]["role"] == "system" and "retrosynthetic" in first[0]["content"]
    assert "Pathway:" in first[0]["content"] and "Explanation:" in first[0]["content"]
    assert first[-1]["role"] == "user" and "CC(=O)Nc1ccc(O)cc1" in first[-1]["content"]
    history = (
        Message(1, 1, Sender.MACHINE, Tag.INIT, "CC(=O)O.Nc1ccc(O)cc1", "amide coupling"),
        Message(1, 2, Sender.HUMAN, Tag.REFUTE, "CC(=O)OC(C)=O.Nc1ccc(O)cc1", "use the anhydride"),
    )
    third = machine.prompt(turn(3, history))
    assert [m["role"] for m in third] == ["system", "user", "assistant", "user"]
    assert "REFUTE" in third[-1]["content"] and "use the anhydride" in third[-1]["content"]
