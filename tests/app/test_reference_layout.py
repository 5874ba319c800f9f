"""``--prompts reference`` carries the context as the reference scripts do (``assemble_prompt`` appends the system
prompt and the request to the context C, which holds the replies' texts only): the earlier exchanges first, without
their questions or X-rays, then the system prompt, then the question with this case's X-ray. pxp's own prompts keep
the system prompt first and each session's case. docs/FIDELITY.md, row context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pxp_harness.cli_helpers import pxp
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.tasks import get_task, get_variant


def _case(number: int, row: Any) -> Instance:
    return Instance(number, "demo-rad", row.key, row.split, row.input, row.image_bytes(), row.image_mime,
                    row.reference_prediction, row.reference_explanation, row.meta)  # fmt: skip


CASES = [_case(i, r) for i, r in enumerate(get_task("rad").demo_rows()[:2], start=1)]


def _exchange(session: int, *tags: Tag) -> tuple[Message, ...]:
    return tuple(
        Message(session, j, Sender.MACHINE if j % 2 else Sender.HUMAN, tag, "Pneumonia", f"reading {j}")
        for j, tag in enumerate(tags, start=1)
    )


def _prompt(prompts: str) -> list[dict[str, Any]]:
    """The machine's prompt at message 3 of the second case, the first case's session carried."""
    task = get_variant("rad", prompts)
    machine = MachineAgent(task, LLMClient("x"), Checker(LLMClient("y")))
    earlier = SessionRecord(1, CASES[0], 0, _exchange(1, Tag.INIT, Tag.REFUTE, Tag.REVISE, Tag.RATIFY, Tag.RATIFY),
                            StopReason.RATIFIED)  # fmt: skip
    return machine.prompt(Turn(1, 2, CASES[1], 1, 2, 3, 10, 3, _exchange(2, Tag.INIT, Tag.REFUTE), [earlier]))


def _images(message: dict[str, Any]) -> int:
    content = message["content"]
    return 0 if isinstance(content, str) else sum(part["type"] == "image_url" for part in content)


def test_the_reference_layout_puts_the_texts_of_every_exchange_first_then_the_system_prompt_and_the_question() -> None:
    prompt = _prompt("reference")
    assert [m["role"] for m in prompt] == [*["assistant", "user"] * 2, "assistant", "assistant", "user", "system", "user"]
    history, (system, question) = prompt[:-2], prompt[-2:]
    assert all(isinstance(m["content"], str) for m in history)  # texts only: no earlier question, no X-ray
    assert history[0]["content"].startswith("This is my initial diagnosis of the X-Ray:")  # the earlier session
    assert history[-2]["content"].startswith("This is my initial diagnosis of the X-Ray:")  # this session's opening
    assert history[-1]["content"].startswith("I think you made a mistake. I refute your diagnosis.")
    assert "Use the following as context" not in system["content"]
    assert "you have to predict the presence of one of the ailments" in question["content"][0]["text"]
    assert _images(question) == 1


def test_pxps_own_layout_keeps_the_system_prompt_first_and_each_sessions_case() -> None:
    prompt = _prompt("pxp")
    assert prompt[0]["role"] == "system" and prompt[0]["content"].endswith("Use the following as context:")
    assert sum(_images(m) for m in prompt) == 2  # the earlier case's thumbnail and this one


def test_the_offline_baseline_still_reads_its_own_session_in_the_reference_layout(capsys, db_path: Path) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--prompts", "reference", "--limit", "3", "--quiet",
                       "--db", db_path)  # fmt: skip
    assert code == 0, err
    with Blackboard.open(db_path, create=False) as board:
        tags = [[m.tag for m in board.session_messages(s)] for s in (1, 2, 3)]
    # the proxy refutes the opening; the machine adopts its answer (it read the refutation after its opening)
    assert all(t[:3] == [Tag.INIT, Tag.REFUTE, Tag.REVISE] or t[1] is Tag.RATIFY for t in tags) and any(
        Tag.REVISE in t for t in tags
    )
