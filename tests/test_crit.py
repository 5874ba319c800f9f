"""The CRIT judge of EVINCE's final distribution (issue 10): its prompt, its tolerant reading of a judge's reply,
the offline baseline judge (deterministic, through litellm like any model), and the fallback to equal weights."""

from __future__ import annotations

import asyncio

import pytest

from pxp_tui.agents.crit import (
    Argument,
    CritError,
    Judge,
    crit_prompt,
    offline_crit,
    offline_cues,
    parse_scores,
)
from pxp_tui.agents.llm import LLMClient
from pxp_tui.common.models import OFFLINE_JUDGE

CASE = "Chest X-ray, case 7."
SURE = Argument(
    "Pneumonia",
    "Patchy consolidation in the right lower lobe: Pneumonia.",
    {"Pneumonia": 0.8, "Atelectasis": 0.1, "Pleural Effusion": 0.05, "Cardiomegaly": 0.03, "Pneumothorax": 0.02},
)
UNSURE = Argument(
    "Atelectasis",
    "Volume loss at the right base, consistent with Atelectasis.",
    {"Pneumonia": 0.22, "Atelectasis": 0.24, "Pleural Effusion": 0.2, "Cardiomegaly": 0.18, "Pneumothorax": 0.16},
)


@pytest.mark.parametrize(
    ("reply", "scores"),
    [
        ("Expert A: 7\nExpert B: 5", (7, 5)),
        ("**Expert A**: **8**/10\n**Expert B**: 3/10", (8, 3)),
        ("## Scores\n- A: 6.5\n- B = 9", (6.5, 9)),
        ("Expert A: 7, Expert B: 5", (7, 5)),
        ("Expert A gives three valid reasons: 8/10. Expert B only restates its claim: 4 out of 10.", (8, 4)),
        # reasoning first, the scores last: the last given counts
        ("Expert A: 2 reasons, Expert B: 1 reason.\n\nFinal scores\nExpert A: 9\nExpert B: 6", (9, 6)),
        ("  > Expert A - 10\n  > Expert B \u2013 1", (10, 1)),
    ],
)
def test_a_judges_reply_is_read_however_it_writes_the_scores(reply: str, scores: tuple[float, float]) -> None:
    assert parse_scores(reply) == scores


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("Expert A is more convincing.", "no score for Expert A or Expert B"),
        ("Expert A: 7", "no score for Expert B"),
        ("Expert A: 12\nExpert B: 3", "Expert A's score 12 is outside 1-10"),
        ("Expert A: 0\nExpert B: 3", "outside 1-10"),
        ("", "no score"),
    ],
)
def test_a_reply_without_two_scores_is_refused_with_its_reason(reply: str, words: str) -> None:
    with pytest.raises(CritError, match=words):
        parse_scores(reply)


def test_the_prompt_shows_the_case_and_both_arguments_and_asks_for_the_rubric() -> None:
    system, user = crit_prompt(CASE, SURE, UNSURE, "Prediction")
    assert "CRIT" in system["content"] and "validity" in system["content"] and "credibility" in system["content"]
    assert "rival reasons" in system["content"] and "from 1" in system["content"] and "to 10" in system["content"]
    text = user["content"]
    assert text.startswith(f"Case: {CASE}")
    assert text.index("<expert_a>") < text.index("Prediction: Pneumonia") < text.index("<expert_b>")
    assert "Prediction: Atelectasis" in text and '"Pneumonia": 0.8' in text and "Volume loss" in text


def test_the_offline_judge_is_deterministic_and_weighs_a_certain_supported_argument_more() -> None:
    prompt = crit_prompt(CASE, SURE, UNSURE)
    reply = offline_crit(prompt)
    assert reply == offline_crit(crit_prompt(CASE, SURE, UNSURE)) and "baseline" in reply
    a, b = parse_scores(reply)
    assert a > b  # lower entropy (Maxim 4.1), both ranked first and named
    swapped = parse_scores(offline_crit(crit_prompt(CASE, UNSURE, SURE)))
    assert swapped == (b, a)  # the seat does not matter, only the argument


def test_the_offline_judge_marks_down_a_prediction_its_distribution_or_explanation_does_not_support() -> None:
    labels = 5
    sure = offline_cues(SURE, labels)
    assert sure["ranked_first"] == sure["named"] == 1.0 and 0.5 < sure["certainty"] < 1
    # the same distribution, but the prediction is not what it ranks first nor what the explanation names
    unsupported = Argument("Cardiomegaly", SURE.explanation, SURE.distribution)
    cues = offline_cues(unsupported, labels)
    assert cues["ranked_first"] == cues["named"] == 0.0 and cues["certainty"] == sure["certainty"]
    a, b = parse_scores(offline_crit(crit_prompt(CASE, SURE, unsupported)))
    assert a > b
    # a one-hot is certain; a uniform distribution is not
    assert offline_cues(Argument("x", "x", {"x": 1.0, "y": 0.0}), 2)["certainty"] == 1.0
    assert offline_cues(Argument("x", "x", {"x": 0.5, "y": 0.5}), 2)["certainty"] == pytest.approx(0.0)


def test_drug_predictions_match_their_distribution_in_any_order_of_reactants() -> None:
    argument = Argument("Nc1ccc(O)cc1.CC(=O)OC(C)=O", "From CC(=O)OC(C)=O and Nc1ccc(O)cc1.", {"CC(=O)OC(C)=O.Nc1ccc(O)cc1": 1.0})
    assert offline_cues(argument, 1) == {"certainty": 1.0, "ranked_first": 1.0, "named": 1.0}


def test_the_offline_judge_answers_through_litellm_as_a_model_does() -> None:
    judge = Judge(LLMClient(OFFLINE_JUDGE))
    verdict = asyncio.run(judge.judge(CASE, SURE, UNSURE))
    assert verdict.method == "crit:offline baseline"
    assert verdict.weights == parse_scores(offline_crit(crit_prompt(CASE, SURE, UNSURE)))
    assert verdict.machine is not None and verdict.human is not None and verdict.machine > verdict.human
    assert "Expert A:" in verdict.reply


def test_a_judge_without_scores_gives_equal_weights_and_says_why() -> None:
    client = LLMClient("gpt-4o-mini", params={"mock_response": "Both experts argue well."}, retry_delay=0)
    verdict = asyncio.run(Judge(client).judge(CASE, SURE, UNSURE))
    assert verdict.weights == (1.0, 1.0) and (verdict.machine, verdict.human) == (None, None)
    assert verdict.method.startswith("equal (judge failed: no score for Expert A or Expert B")
    assert verdict.reply == "Both experts argue well."


def test_a_judge_that_answers_gives_its_scores_as_the_weights() -> None:
    client = LLMClient("gpt-4o-mini", params={"mock_response": "Expert A's reasons hold.\n**Expert A:** 8\n**Expert B:** 4"})
    verdict = asyncio.run(Judge(client).judge(CASE, SURE, UNSURE))
    assert verdict.weights == (8.0, 4.0) and verdict.method == "crit:gpt-4o-mini"
