"""The offline baselines state real distributions whose most probable answer is the one they reply with."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.protocol.information import entropy
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task
from pxp_tui.tasks.drug import baseline as drug_baseline
from pxp_tui.tasks.drug import templates
from pxp_tui.tasks.rad import baseline as rad_baseline
from pxp_tui.tasks.rad.labels import LABELS

RAD, DRUG = get_task("rad"), get_task("drug")
for _task in (RAD, DRUG):
    register_offline_models(_task)  # pxp-offline/rad and /drug, as a run registers them


def instances(task) -> list[Instance]:
    return [
        Instance(
            i,
            "demo",
            r.key,
            r.split,
            r.input,
            r.image_bytes(),
            r.image_mime,
            r.reference_prediction,
            r.reference_explanation,
            r.meta,
        )
        for i, r in enumerate(task.demo_rows(), start=1)
    ]


def prompt(task, instance: Instance, prior: list[SessionRecord] = (), history: tuple[Message, ...] = ()) -> list[dict]:
    agent = MachineAgent(task, LLMClient(f"pxp-offline/{task.name}"), Checker(LLMClient("pxp-offline/checker")))
    return agent.prompt(Turn(1, 99, instance, len(prior), 10, len(history) + 1, 10, 3, history, list(prior)))


def labelled(record_id: int, instance: Instance, label: str) -> SessionRecord:
    """An earlier session in which the expert gave ``label`` (and the reference explanation)."""
    messages = (
        Message(record_id, 1, Sender.MACHINE, Tag.INIT, "Pneumonia", "My reading."),
        Message(record_id, 2, Sender.HUMAN, Tag.REFUTE, label, instance.reference_explanation),
    )
    return SessionRecord(record_id, instance, record_id - 1, messages, StopReason.BOUND)


@pytest.fixture(scope="module")
def phantoms() -> list[Instance]:
    return instances(RAD)


def test_rad_without_labelled_cases_states_its_uniform_prior(phantoms: list[Instance]) -> None:
    messages = prompt(RAD, phantoms[0])
    assert rad_baseline.distribution(messages) == {label: pytest.approx(0.2) for label in LABELS}
    assert RAD.parse(rad_baseline.answer(messages))[0] == LABELS[0]  # on the tie it names the first


def test_rad_is_a_softmax_over_the_nearest_case_of_each_condition(phantoms: list[Instance]) -> None:
    prior = [labelled(i, case, case.reference_prediction) for i, case in enumerate(phantoms[:8], start=1)]
    given = {case.reference_prediction for case in phantoms[:8]}
    for case in phantoms[8:20]:
        messages = prompt(RAD, case, prior)
        nearest = rad_baseline.nearest_by_label(messages)
        assert set(nearest) == given
        label, explanation = RAD.parse(rad_baseline.answer(messages))
        stated = float(re.search(r"\(distance (\d+\.\d+)", explanation).group(1))
        assert min(nearest, key=nearest.__getitem__) == label and round(nearest[label], 2) == stated
        dist = rad_baseline.distribution(messages)
        assert list(dist) == list(LABELS) and math.fsum(dist.values()) == pytest.approx(1)
        assert max(dist, key=dist.__getitem__) == label
        assert all(dist[x] == 0 for x in LABELS if x not in given)
        for x in given:  # e times less probable per temperature of extra distance
            assert dist[x] / dist[label] == pytest.approx(
                math.exp(-(nearest[x] - nearest[label]) / rad_baseline.DISTANCE_TEMPERATURE)
            )
        assert 0 < entropy(dist) < math.log2(len(given))


def test_rad_after_a_refutation_the_radiologists_condition_leads(phantoms: list[Instance]) -> None:
    prior = [labelled(i, case, case.reference_prediction) for i, case in enumerate(phantoms[:8], start=1)]
    case = phantoms[10]
    history = (
        Message(99, 1, Sender.MACHINE, Tag.INIT, "Pneumonia", "Patchy opacity."),
        Message(99, 2, Sender.HUMAN, Tag.REFUTE, "Cardiomegaly", "Enlarged cardiac silhouette."),
    )
    messages = prompt(RAD, case, prior, history)
    assert RAD.parse(rad_baseline.answer(messages))[0] == "Cardiomegaly"
    assert rad_baseline.nearest_by_label(messages)["Cardiomegaly"] == 0
    dist = rad_baseline.distribution(messages)
    assert max(dist, key=dist.__getitem__) == "Cardiomegaly" and dist["Cardiomegaly"] > 0.9
    with pytest.raises(ValueError):
        rad_baseline.softmax_over_distances({"Pneumonia": 0.2}, temperature=0)


def test_drug_ranks_its_answer_first_for_every_demo_target() -> None:
    for target in instances(DRUG):
        messages = prompt(DRUG, target)
        pathway, _ = DRUG.parse(drug_baseline.answer(messages), target)
        dist = drug_baseline.distribution(messages, k=3)
        ranked = list(dist)
        assert ranked[0] == DRUG.normalise(pathway), target.key
        assert 1 <= len(ranked) <= 3 and all(DRUG.normalise(s) == s for s in ranked)
        assert math.fsum(dist.values()) == pytest.approx(1)
        for a, b in itertools.pairwise(ranked):
            assert dist[a] / dist[b] == pytest.approx(math.e)


LIDOCAINE = Instance(1, "d", "lidocaine", input="CCN(CC)CC(=O)Nc1c(C)cccc1C", meta={"name": "Lidocaine"})
REFERENCE = "CCNCC.Cc1cccc(C)c1NC(=O)CCl"


def test_drug_takes_the_chemists_set_first_and_keeps_its_templates_after_it() -> None:
    options = [d.smiles for d in templates.disconnections(LIDOCAINE.input)]
    fresh = drug_baseline.candidates(prompt(DRUG, LIDOCAINE))
    assert fresh == options  # no confirmations yet: the library's priority order
    history = (
        Message(1, 1, Sender.MACHINE, Tag.INIT, options[0], "first guess"),
        Message(1, 2, Sender.HUMAN, Tag.REFUTE, REFERENCE, "Alkylate diethylamine with the chloroacetamide."),
    )
    revised = drug_baseline.candidates(prompt(DRUG, LIDOCAINE, history=history))
    assert revised[0] == DRUG.normalise(REFERENCE)
    assert revised[1:] == [s for s in options if s != revised[0]]
    earlier = SessionRecord(7, LIDOCAINE, 0, history, StopReason.BOUND)
    remembered = drug_baseline.distribution(prompt(DRUG, LIDOCAINE, prior=[earlier]), k=1)
    assert remembered == {DRUG.normalise(REFERENCE): 1.0}


def test_drug_with_no_disconnection_stands_by_the_target_itself() -> None:
    methane = Instance(5, "d", "methane", input="C", meta={"name": "Methane"})
    assert drug_baseline.distribution(prompt(DRUG, methane)) == {"C": 1.0}
    with pytest.raises(ValueError):
        drug_baseline.distribution(prompt(DRUG, methane), k=0)
