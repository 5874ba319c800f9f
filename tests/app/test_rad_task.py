"""The RAD task: labels, parsing, the prompt with its images, and the offline nearest-neighbour baseline."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, ParseError, SessionRecord, Turn
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.runs.seats import register_offline_models
from pxp_tui.tasks import get_task
from pxp_tui.tasks.rad import baseline, dataset, images
from pxp_tui.tasks.rad.labels import label_of

TASK = get_task("rad")
register_offline_models(TASK)  # pxp-offline/rad, as a run registers it


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Pleural Effusion", "Pleural Effusion"),
        ("  pleural   EFFUSION.", "Pleural Effusion"),
        ("effusion", "Pleural Effusion"),
        ("PleuralEffusion", "Pleural Effusion"),
        ("Pleural_Effusion", "Pleural Effusion"),
        ("PLEF", "Pleural Effusion"),
        ("enlarged heart", "Cardiomegaly"),
        ("**Pneumothorax** (right, large)", "Pneumothorax"),
        ("Right lower lobe consolidation", "Pneumonia"),
        ("No pneumothorax; cardiomegaly", "Cardiomegaly"),
        ("no effusion, but basal atelectasis", "Atelectasis"),
        ("Normal chest", None),
        ("Yes", None),
    ],
)
def test_labels_are_normalised(text: str, label: str | None) -> None:
    assert label_of(text) == label


def test_replies_are_parsed_as_llms_write_them() -> None:
    reply = "Here is my reading.\n\n**Prediction:** Right-sided pleural effusion\n\n**Explanation:** Blunted right costophrenic angle with a meniscus."
    assert TASK.parse(reply) == ("Pleural Effusion", "Blunted right costophrenic angle with a meniscus.")
    assert TASK.parse("Diagnosis: PNTX\nReport: Visceral pleural line, no lung markings beyond it.")[0] == "Pneumothorax"
    with pytest.raises(ParseError, match="names none of Atelectasis"):
        TASK.parse("Prediction: Normal study\nExplanation: Clear lungs.")
    with pytest.raises(ParseError, match="Explanation"):
        TASK.parse("Prediction: Pneumonia")
    assert TASK.match("effusion", "Pleural Effusion") and not TASK.match("Pneumonia", "Pneumothorax")
    assert TASK.validate_prediction("fracture") is not None and TASK.validate_prediction("PTX") is None


@pytest.fixture(scope="module")
def cases(shared_data_module: Path) -> list[Instance]:
    rows = dataset.read(shared_data_module / "train_xray_data.csv")
    return [
        Instance(
            i,
            "xray",
            r.key,
            r.split,
            r.input,
            r.image_bytes(),
            r.image_mime,
            r.reference_prediction,
            r.reference_explanation,
            r.meta,
        )
        for i, r in enumerate(rows, start=1)
    ]


@pytest.fixture(scope="module")
def shared_data_module() -> Path:
    from ..conftest import SHARED_DATA, shared

    return shared(SHARED_DATA, "real cases")


def decoded(url: str) -> Image.Image:
    return Image.open(BytesIO(images.decode_data_url(url)))


def test_the_image_goes_as_a_small_data_url_and_earlier_cases_as_thumbnails(cases: list[Instance]) -> None:
    big = max(cases, key=lambda c: len(c.image or b""))
    text, image = TASK.instance_content(big)
    assert big.key in text["text"]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert max(decoded(url).size) == images.PROMPT_SIDE < max(Image.open(BytesIO(big.image)).size)
    assert len(url) < len(big.image or b"") / 4
    _, thumb = TASK.instance_content(big, in_context=True)
    assert max(decoded(thumb["image_url"]["url"]).size) == images.THUMBNAIL_SIDE and thumb["image_url"]["detail"] == "low"


def session(record_id: int, instance: Instance, machine_label: str, human_label: str, report: str) -> SessionRecord:
    messages = (
        Message(record_id, 1, Sender.MACHINE, Tag.INIT, machine_label, "My reading."),
        Message(record_id, 2, Sender.HUMAN, Tag.REFUTE, human_label, report),
        Message(record_id, 3, Sender.MACHINE, Tag.REVISE, human_label, report),
        Message(record_id, 4, Sender.HUMAN, Tag.RATIFY, human_label, report),
        Message(record_id, 5, Sender.MACHINE, Tag.RATIFY, human_label, report),
    )
    return SessionRecord(record_id, instance, record_id - 1, messages, StopReason.RATIFIED)


def machine() -> MachineAgent:
    return MachineAgent(TASK, LLMClient("pxp-offline/rad"), Checker(LLMClient("pxp-offline/checker")))


def turn(instance: Instance, prior: list[SessionRecord], history: tuple[Message, ...] = ()) -> Turn:
    return Turn(1, 99, instance, len(prior), 10, len(history) + 1, 10, 3, history, prior)


def test_the_prompt_carries_earlier_images_and_the_radiologists_labels(cases: list[Instance]) -> None:
    prior = [session(1, cases[0], "Pneumonia", "Atelectasis", cases[0].reference_explanation)]
    prompt = machine().prompt(turn(cases[5], prior))
    assert prompt[0]["role"] == "system" and prompt[0]["content"].endswith("Use the following as context:")
    urls = [
        p["image_url"]["url"] for m in prompt if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"
    ]
    assert len(urls) == 2
    assert max(decoded(urls[0]).size) == images.THUMBNAIL_SIDE and max(decoded(urls[1]).size) == images.PROMPT_SIDE
    assert "Human (REFUTE).\nPrediction: Atelectasis" in prompt[2 + 1]["content"]


def test_the_baseline_states_its_prior_without_labelled_cases(cases: list[Instance]) -> None:
    answer = baseline.answer(machine().prompt(turn(cases[0], [])))
    prediction, explanation = TASK.parse(answer)
    assert prediction == "Atelectasis"
    assert "No labelled case" in explanation and "prior" in explanation and "1/5" in explanation


def test_the_baseline_names_the_nearest_labelled_case(cases: list[Instance]) -> None:
    by_key = {c.key: c for c in cases}
    twin = by_key["case_20#2"]  # the same image as case_20, labelled Pneumothorax in the papers' file
    prior = [
        session(i, c, "Pneumonia", c.reference_prediction, c.reference_explanation)
        for i, c in enumerate((by_key["case_1"], twin, by_key["case_42"]), start=1)
    ]
    prediction, explanation = TASK.parse(baseline.answer(machine().prompt(turn(by_key["case_20"], prior))))
    assert prediction == "Pneumothorax"
    assert explanation.startswith("Nearest earlier case: case_20#2, labelled Pneumothorax by the radiologist (distance 0.0")
    assert "3 labelled cases compared" in explanation and twin.reference_explanation in explanation


def test_the_baseline_quotes_the_nearest_case_s_report_once_however_many_cases_ratified_its_quotes(
    cases: list[Instance],
) -> None:
    """A radiologist who ratifies the baseline's explanation sends it back as their report, quote and all: the next
    case's explanation quoted that, whose quote quoted the one before, growing case by case."""
    by_key = {c.key: c for c in cases}
    first, twin, again = by_key["case_1"], by_key["case_20#2"], by_key["case_20"]  # case_20#2: case_20's image
    own = first.reference_explanation
    prior = [session(1, first, "Pneumonia", first.reference_prediction, own)]
    _, quoting = TASK.parse(baseline.answer(machine().prompt(turn(twin, prior))))
    assert quoting.endswith(f"The radiologist's report of that case: {own}")
    prior.append(session(2, twin, "Pneumonia", first.reference_prediction, quoting))  # ratified, word for word
    _, explanation = TASK.parse(baseline.answer(machine().prompt(turn(again, prior))))
    assert explanation.startswith("Nearest earlier case: case_20#2")
    assert explanation.count("The radiologist's report of that case:") == 1 and explanation.count("Nearest earlier case") == 1
    assert explanation.endswith(f"The radiologist's report of that case: {own}")


def test_the_baseline_takes_the_radiologists_answer_over_after_a_refutation(cases: list[Instance]) -> None:
    case = cases[3]
    history = (
        Message(99, 1, Sender.MACHINE, Tag.INIT, "Pneumonia", "Patchy opacity."),
        Message(99, 2, Sender.HUMAN, Tag.REFUTE, "Atelectasis", "Plate-like opacity with volume loss."),
    )
    answer = baseline.answer(machine().prompt(turn(case, [], history)))
    assert TASK.parse(answer) == ("Atelectasis", "Plate-like opacity with volume loss.")
    ratified = (*history[:1], Message(99, 2, Sender.HUMAN, Tag.RATIFY, "Pneumonia", "Patchy opacity."))
    assert TASK.parse(baseline.answer(machine().prompt(turn(case, [], ratified)))) == ("Pneumonia", "Patchy opacity.")
