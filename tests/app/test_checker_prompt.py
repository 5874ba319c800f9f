"""The checker's question is the papers': AGREE asks a model "Are these two reports/pathways consistent with each other?"
(the journal's words; RAD's reports, DRUG's pathways), shows it both explanations as they are, at temperature 0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pxp_tui.agents.llm import Completion
from pxp_tui.config import RunConfig
from pxp_tui.runs.seats import build_machine
from pxp_tui.tasks import get_task


def papers_question(papers: Path) -> tuple[str, dict[str, str], str]:
    """(the words before the noun, task -> the noun the journal uses for it, the words after) of the papers' question."""
    text = (next(papers.glob("002_*.txt"))).read_text(encoding="utf-8")
    found = re.search(r"“(Are these two )(\w+)/(\w+)( consistent with each other\?)”", text)
    assert found, "the journal asks the checker its question in these words"
    before, rad, drug, after = found.groups()
    return before, {"rad": rad, "drug": drug}, after


def checker_temperature(papers: Path) -> float:
    text = (next(papers.glob("001_*.txt"))).read_text(encoding="utf-8")
    found = re.search(r"temperature” parameter for the LLM used to check explanations[^.]*? set to (\d+\.\d+)", text)
    assert found
    return float(found.group(1))


@pytest.mark.parametrize("task", ["rad", "drug"])
async def test_the_checker_asks_the_papers_question_of_both_explanations_at_the_papers_temperature(
    task: str, shared_papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, nouns, after = papers_question(shared_papers)
    _machine, checker = build_machine(get_task(task), RunConfig(task=task, model="openai/gpt-4o"))  # as a run wires it
    asked: list[tuple[list[dict], dict]] = []

    async def complete(messages: list[dict], **settings) -> Completion:
        asked.append((messages, settings))
        return Completion("Yes", "recorded", 1.0)

    monkeypatch.setattr(checker.client, "complete", complete)
    first, second = "The left lung base is dense.\n  Volume loss.", "Opacity at the left base; no effusion."
    verdict, reply = await checker.agree(first, second)
    assert verdict is True and reply is not None and reply.text == "Yes"
    [(messages, settings)] = asked
    question = messages[-1]["content"]
    # the papers' words, the task's noun last (an adjective before it is the task's: "radiology reports")
    assert re.search(re.escape(before) + r"(?:[\w-]+ )*" + re.escape(nouns[task]) + re.escape(after), question), question
    assert first in question and second in question
    assert settings["temperature"] == checker_temperature(shared_papers) == 0.0


async def test_identical_explanations_agree_without_asking(shared_papers: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _machine, checker = build_machine(get_task("rad"), RunConfig(task="rad", model="openai/gpt-4o"))
    asked = []

    async def complete(messages: list[dict], **settings) -> Completion:
        asked.append(messages)
        return Completion("No", "recorded", 1.0)

    monkeypatch.setattr(checker.client, "complete", complete)
    assert await checker.agree("Same report.", " Same report.\n") == (True, None)
    assert asked == []
