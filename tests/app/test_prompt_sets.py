"""``--prompts paper|reference`` and ``--rad-question yes-no``: the wording of the papers' Examples 1 and 2 and of the
reference scripts, checked against the papers' text; runs through them end to end with the offline baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, Tag
from pxp_tui.tasks import get_variant

#: the conference paper, Example 1 (Prompt Assembly for X-Ray Diagnosis), as printed
EXAMPLE_1_SYSTEM = (
    "You are a radiology expert, with detailed knowledge of Atelectasis, Pneumonia, Pleural Effusion, Cardiomegaly, "
    "Pneumothorax. Adhere to the following output format strictly, no extra text"
)
EXAMPLE_1_REPLY = "Both the diagnosis and the explanation are incorrect. Please correct both."
#: the conference paper, Example 2 (Prompt Assembly for Molecule Synthesis), its first sentence and its format
EXAMPLE_2_SYSTEM = "You are a synthetic Chemist. Always give the IUPAC name and SMILES strings of molecules."


def _reply(tag: Tag, match: bool, agree: bool) -> Message:
    return Message(1, 2, Sender.HUMAN, tag, "Pneumothorax", "Patient presented with pain on the right side",
                   {"guard_match": match, "guard_agree": agree})  # fmt: skip


def test_example_1_the_yes_no_question_and_the_humans_judgement() -> None:
    task = get_variant("rad", "paper", "yes-no")
    system = task.system_prompt()
    assert system.startswith(EXAMPLE_1_SYSTEM)
    assert "Prediction: Yes/No" in system and "Explanation: <explanation>" in system
    reply = task.reply_content(_reply(Tag.REFUTE, False, False))
    assert reply.startswith(EXAMPLE_1_REPLY)  # "Both the diagnosis and the explanation are incorrect. Please correct both."
    assert "Patient presented with pain on the right side" in reply
    assert task.parse("Prediction: No\nExplanation: The X-ray does not show a clear visceral pleural line") == (
        "No",
        "The X-ray does not show a clear visceral pleural line",
    )


def test_example_2_the_molecule_synthesis_request() -> None:
    task = get_variant("drug", "paper")
    assert task.system_prompt() == EXAMPLE_2_SYSTEM
    from pxp_tui.tasks.drug.variant import PAPER_ASK

    assert PAPER_ASK.startswith("Please perform a retrosynthetic analysis of {molecule} to outline a feasible")
    assert PAPER_ASK.endswith("Pathway: <pathway>\n\nExplanation: <explanation>")


def test_the_reference_tells_the_machine_the_other_agent_is_always_right() -> None:
    rad = get_variant("rad", "reference").system_prompt()
    drug = get_variant("drug", "reference").system_prompt()
    assert "the other agent (user) always provides correct" in rad and "the other agent (user) always provides correct" in drug
    yes_no = get_variant("rad", "reference", "yes-no").system_prompt()
    assert "the user has access to an oracle with 100% prediction accuracy" in yes_no


@pytest.mark.parametrize(
    ("task", "options"),
    [
        ("rad", ["--prompts", "paper", "--rad-question", "yes-no"]),
        ("rad", ["--prompts", "reference"]),
        ("drug", ["--prompts", "paper"]),
        ("drug", ["--prompts", "reference"]),
    ],
)
def test_a_run_goes_through_each_wording_with_the_offline_baseline(capsys, db_path: Path, task: str, options: list[str]) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--task", task, "--limit", "3", "--quiet", *options, "--db", str(db_path))
    assert code == 0, err
    with Blackboard.open(db_path, create=False) as board:
        run = board.runs()[-1]
        rows = list(board.db.query("SELECT sender, prediction FROM messages ORDER BY session_id, j"))
    assert run.status.value == "done" and run.config.prompts == options[1]
    machine = [r["prediction"] for r in rows if r["sender"] == "machine"]
    assert machine and all(p.strip() for p in machine)
    if "yes-no" in options:
        assert set(machine) <= {"Yes", "No"}
        assert {r["prediction"] for r in rows if r["sender"] == "human"} == {"Yes"}  # every case shows its own disease


def test_the_reference_drug_prompt_carries_the_imported_few_shot_examples(capsys, shared_data: Path, db_path: Path) -> None:
    code, _, err = pxp(capsys, "import", "drug", str(shared_data / "retro.csv"), "--name", "interact-drug",
                       "--reference-split", "--few-shot", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path))  # fmt: skip
    assert code == 0, err
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.variants import task_of

    with Blackboard.open(db_path, create=False) as board:
        task = task_of(RunConfig(task="drug", prompts="reference"), board, "interact-drug")
        shots = board.instances(board.instance_ids("interact-drug", "shots"))
    system = task.system_prompt()
    assert len(shots) == 5
    assert system.count("Generate a single-step retrosynthetic pathway for") == 5
    assert all(shot.reference_prediction in system for shot in shots)
