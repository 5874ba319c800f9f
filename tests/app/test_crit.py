"""CRIT each round (paper 003, Table 4): the judge's prompt, its reading of a judge's JSON (reasons with validity
and credibility, rival reasons), the weighted score, the offline heuristic stand-in, and a failing judge."""

from __future__ import annotations

import asyncio
import json

import pytest

from pxp_tui.agents.crit import (
    OFFLINE_METHOD,
    Argument,
    CritError,
    Judge,
    crit_prompt,
    offline_crit,
    parse_verdict,
)
from pxp_tui.agents.llm import LLMClient
from pxp_tui.common.models import OFFLINE_JUDGE
from pxp_tui.protocol import crit

CASE = "Case 7: fever, dry cough, aching muscles and chills for two days during an outbreak."
SURE = Argument(
    "Influenza",
    "Fever with chills and aching muscles during an outbreak is influenza. The dry cough fits it too.",
    {"Influenza": 0.8, "Migraine": 0.1, "Gastroenteritis": 0.1},
)
UNSURE = Argument(
    "Gastroenteritis",
    "It could be a stomach bug. Many people feel unwell in winter.",
    {"Influenza": 0.3, "Migraine": 0.3, "Gastroenteritis": 0.4},
)

REPLY = {
    "expert_a": {
        "claim": "Influenza",
        "reasons": [{"reason": "fever, chills, myalgia in an outbreak", "validity": 9, "credibility": 8}],
        "rival_reasons": [{"reason": "could be a stomach bug", "validity": 2, "credibility": 3}],
        "score": 8,
    },
    "expert_b": {
        "claim": "Gastroenteritis",
        "reasons": [{"reason": "a stomach bug", "validity": 2, "credibility": 3}],
        "rival_reasons": [{"reason": "the case has no diarrhoea", "validity": 8, "credibility": 8}],
        "score": 2,
    },
}


def test_the_weighted_score_of_table_4() -> None:
    """Gamma = mean(w over R) * S / (S + S'), w = validity * credibility / 10 (our weights: the paper gives none)."""
    assert crit.score([(10, 10)]) == pytest.approx(10.0)  # one perfect reason, no rival
    assert crit.score([(8, 5), (6, 5)]) == pytest.approx((4 + 3) / 2)  # no rival: the mean strength
    assert crit.score([(8, 5)], [(8, 5)]) == pytest.approx(2.0)  # a rival as strong: half
    assert crit.score([], [(8, 5)]) == 0.0  # no reason: nothing
    assert crit.score([(9, 8)], [(2, 3)]) > crit.score([(9, 8)], [(8, 8)])  # stronger rivals, lower score
    with pytest.raises(ValueError, match="validity lies in 1-10"):
        crit.score([(11, 5)])
    assert crit.round_score(8.0, 4.0) == 6.0 and crit.round_score(8.0, None) is None


def test_the_prompt_asks_for_table_4_step_by_step_as_json() -> None:
    system, user = crit_prompt(CASE, SURE, UNSURE, "Diagnosis")
    for words in ("claim", "reasons", "validity", "credibility", "rival reasons", "JSON"):
        assert words in system["content"]
    text = user["content"]
    assert text.startswith(f"Case: {CASE}")
    assert text.index("<expert_a>") < text.index("Diagnosis: Influenza") < text.index("<expert_b>")
    assert '"Influenza": 0.8' in text and "stomach bug" in text


@pytest.mark.parametrize(
    "dress",
    [
        lambda s: s,
        lambda s: f"```json\n{s}\n```",
        lambda s: f"Here is my assessment.\n{s}\nI hope this helps.",
    ],
)
def test_a_judges_json_is_read_however_it_is_dressed(dress) -> None:
    a, b = parse_verdict(dress(json.dumps(REPLY)))
    assert a.claim == "Influenza" and a.stated == 8 and len(a.reasons) == 1 and len(a.rivals) == 1
    assert a.score == pytest.approx(crit.score([(9, 8)], [(2, 3)]))
    assert b.score == pytest.approx(crit.score([(2, 3)], [(8, 8)]))
    assert a.score > b.score


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("Expert A: 7\nExpert B: 5", "no JSON object"),
        (json.dumps({"expert_a": REPLY["expert_a"]}), "no assessment of Expert B"),
        (json.dumps({**REPLY, "expert_b": {**REPLY["expert_b"], "reasons": []}}), "no scored reason of Expert B"),
        (
            json.dumps(
                {**REPLY, "expert_a": {**REPLY["expert_a"], "reasons": [{"reason": "x", "validity": 12, "credibility": 5}]}}
            ),
            "Expert A's reason 1: validity 12 is outside 1-10",
        ),
        (
            json.dumps({**REPLY, "expert_b": {**REPLY["expert_b"], "rival_reasons": [{"reason": "x", "validity": 5}]}}),
            "credibility is not a number",
        ),
    ],
)
def test_a_reply_without_both_assessments_is_refused_with_its_reason(reply: str, words: str) -> None:
    with pytest.raises(CritError, match=words):
        parse_verdict(reply)


def test_the_offline_stand_in_is_deterministic_labelled_and_answers_in_the_judges_format() -> None:
    prompt = crit_prompt(CASE, SURE, UNSURE)
    reply = offline_crit(prompt)
    assert reply == offline_crit(crit_prompt(CASE, SURE, UNSURE)) and "not CRIT" in reply
    a, b = parse_verdict(reply)
    assert len(a.reasons) == 2 and len(a.rivals) == 2  # the experts' sentences
    # a reason grounded in the case's words is more valid; a surer distribution more credible
    assert a.reasons[0].validity > b.reasons[0].validity and a.reasons[0].credibility > b.reasons[0].credibility
    assert a.score > b.score
    swapped = parse_verdict(offline_crit(crit_prompt(CASE, UNSURE, SURE)))
    assert (swapped[0].score, swapped[1].score) == pytest.approx((b.score, a.score))  # the seat does not matter


def test_the_offline_stand_in_answers_through_litellm_and_is_named_as_a_heuristic() -> None:
    judge = Judge(LLMClient(OFFLINE_JUDGE))
    verdict = asyncio.run(judge.judge(CASE, SURE, UNSURE))
    assert verdict.method == OFFLINE_METHOD == "offline heuristic (not CRIT)"
    assert verdict.scores is not None and verdict.scores[0] > verdict.scores[1]
    stored = verdict.stored()
    assert stored["score"] == pytest.approx(sum(verdict.scores) / 2, abs=1e-6)
    assert stored["items"]["machine"]["reasons"][0]["validity"] >= 1 and stored["reply"] == verdict.reply


def test_a_judge_without_an_assessment_gives_no_scores_and_says_why() -> None:
    client = LLMClient("gpt-4o-mini", params={"mock_response": "Both experts argue well."}, retry_delay=0)
    verdict = asyncio.run(Judge(client).judge(CASE, SURE, UNSURE))
    assert verdict.scores is None and verdict.method.startswith("none (judge failed: no JSON object")
    stored = verdict.stored()
    assert (stored["machine"], stored["human"], stored["score"]) == (None, None, None)
    assert stored["reply"] == "Both experts argue well."


def test_a_judge_that_answers_gives_its_weighted_scores() -> None:
    client = LLMClient("gpt-4o-mini", params={"mock_response": json.dumps(REPLY)})
    verdict = asyncio.run(Judge(client).judge(CASE, SURE, UNSURE))
    assert verdict.method == "crit:gpt-4o-mini"
    assert verdict.scores == pytest.approx((crit.score([(9, 8)], [(2, 3)]), crit.score([(2, 3)], [(8, 8)])))
