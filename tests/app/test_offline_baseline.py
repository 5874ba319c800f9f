"""The offline baseline goes the way of an LLM (prompt, call, parse), through litellm once litellm is loaded and
straight to its answer before (the same answer either way), and learns from the chemist's replies."""

from __future__ import annotations

import json

import pytest

from pxp_harness.outside import python_output
from pxp_tui.agents import tfidf
from pxp_tui.agents.checker import Checker, agree_prompt, offline_checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task
from pxp_tui.tasks.drug import templates

TASK = get_task("drug")
register_offline_models(TASK)  # pxp-offline/drug, as a run registers it
LIDOCAINE = Instance(1, "d", "lidocaine", input="CCN(CC)CC(=O)Nc1c(C)cccc1C", meta={"name": "Lidocaine"})
REFERENCE = "CCNCC.Cc1cccc(C)c1NC(=O)CCl"  # N-alkylation of diethylamine with the chloroacetanilide


def machine() -> MachineAgent:
    return MachineAgent(TASK, LLMClient("pxp-offline/drug"), Checker(LLMClient("pxp-offline/checker")))


async def test_offline_machine_answers_through_litellm_and_names_the_disconnection() -> None:
    agent = machine()
    turn = Turn(1, 1, LIDOCAINE, 0, 1, 1, 10, 3, (), [])
    (prediction, explanation), completion, _ = await agent.ask(turn)
    first = templates.disconnections(LIDOCAINE.input)[0]
    assert TASK.match(prediction, first.smiles)
    assert first.template.title.lower() in explanation.lower()
    assert completion.model == "pxp-offline/drug" and completion.prompt_tokens > 0 and completion.cost == 0.0
    reply = await agent.respond(turn)
    assert reply.tag is Tag.INIT and reply.meta["raw"].startswith("Pathway:")


async def test_it_adopts_the_chemists_reactants_and_revises() -> None:
    agent = machine()
    first = templates.disconnections(LIDOCAINE.input)[0]
    assert not TASK.match(first.smiles, REFERENCE)  # the reference is not its first guess
    history = (
        Message(1, 1, Sender.MACHINE, Tag.INIT, first.smiles, templates.explain(first, LIDOCAINE.input)),
        Message(
            1, 2, Sender.HUMAN, Tag.REFUTE, REFERENCE, "Alkylate diethylamine with the chloroacetamide of 2,6-dimethylaniline."
        ),
    )
    reply = await agent.respond(Turn(1, 1, LIDOCAINE, 0, 1, 3, 10, 3, history, []))
    assert reply.tag is Tag.REVISE
    assert TASK.match(reply.prediction, REFERENCE)
    assert reply.meta["guard_changed"] is True


async def test_it_remembers_a_molecule_from_an_earlier_session() -> None:
    agent = machine()
    earlier = SessionRecord(
        7,
        LIDOCAINE,
        0,
        (
            Message(7, 1, Sender.MACHINE, Tag.INIT, "CCO", "x"),
            Message(7, 2, Sender.HUMAN, Tag.REFUTE, REFERENCE, "Alkylate diethylamine."),
        ),
        StopReason.BOUND,
    )
    (prediction, explanation), _, _ = await agent.ask(Turn(1, 2, LIDOCAINE, 1, 2, 1, 10, 3, (), [earlier]))
    assert TASK.match(prediction, REFERENCE) and "earlier session" in explanation


async def test_confirmed_templates_are_preferred_for_new_targets() -> None:
    # procaine's first proposal is an ester disconnection; a chemist who confirmed nitro reductions
    # elsewhere moves the baseline to propose the nitro reduction first
    procaine = Instance(2, "d", "procaine", input="CCN(CC)CCOC(=O)c1ccc(N)cc1", meta={"name": "Procaine"})
    nitro = next(t for t in templates.TEMPLATES if t.name == "nitro_reduction")
    other = Instance(3, "d", "x", input="Nc1ccc(C(=O)OC)cc1", meta={"name": "x"})
    other_nitro = next(d for d in templates.disconnections(other.input) if d.template is nitro)
    record = SessionRecord(
        9,
        other,
        0,
        (
            Message(9, 1, Sender.MACHINE, Tag.INIT, other_nitro.smiles, "nitro reduction"),
            Message(9, 2, Sender.HUMAN, Tag.RATIFY, other_nitro.smiles, "reduce the nitro group"),
        ),
        StopReason.RATIFIED,
    )
    agent = machine()
    before, _, _ = await agent.ask(Turn(1, 1, procaine, 0, 1, 1, 10, 3, (), []))
    after, _, _ = await agent.ask(Turn(1, 2, procaine, 1, 2, 1, 10, 3, (), [record]))
    assert templates.identify(procaine.input, before[0]) is not nitro
    assert templates.identify(procaine.input, after[0]) is nitro


def test_offline_checker_reads_its_prompt() -> None:
    same = "N-acetylation of 4-aminophenol with acetic anhydride gives the acetamide."
    assert offline_checker(agree_prompt(same, same + " Acetic acid is released.")) == "Yes"
    assert offline_checker(agree_prompt(same, "Suzuki coupling of an aryl bromide and a boronic acid.")) == "No"


def test_tfidf_similarity_bounds() -> None:
    assert tfidf.similarity("amide coupling of the acid", "amide coupling of the acid") == 1.0
    assert tfidf.similarity("", "anything") == 0.0
    assert 0.0 <= tfidf.similarity("amide bond from acid and amine", "ester from acid and alcohol") < 1.0
    assert tfidf.agree("the amide bond forms from the acid and the amine", "amide bond: acid plus amine")


#: in a fresh interpreter: the offline machine asked before litellm is loaded, then through litellm, the same prompt
BOTH_WAYS = """
import asyncio, json, sys
from pxp_tui.agents.llm import LLMClient, load_litellm
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task

register_offline_models(get_task("drug"))
prompt = [{"role": "system", "content": "You plan syntheses."}, {"role": "user", "content": "Target: CCN(CC)CC(=O)Nc1c(C)cccc1C"}]

def seen(completion):
    return [completion.text, completion.model, completion.prompt_tokens, completion.completion_tokens, completion.cost]

async def main():
    client = LLMClient("pxp-offline/drug")
    before = await client.complete(prompt)
    loaded = "litellm" in sys.modules
    load_litellm()
    after = await client.complete(prompt)
    print(json.dumps({"before": seen(before), "litellm imported before": loaded, "after": seen(after)}))

asyncio.run(main())
"""


@pytest.mark.slow
def test_the_offline_machine_answers_the_same_before_litellm_is_loaded_and_through_it() -> None:
    seen = json.loads(python_output(BOTH_WAYS).splitlines()[-1])
    assert seen["litellm imported before"] is False  # an offline run never waits for litellm's import
    assert seen["before"] == seen["after"]
    text, model, prompt_tokens, completion_tokens, cost = seen["before"]
    assert text.startswith("Pathway:") and model == "pxp-offline/drug" and prompt_tokens > 0 and completion_tokens > 0
    assert cost == 0.0
