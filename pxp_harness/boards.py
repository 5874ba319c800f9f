"""Blackboards for review, report and export tests: scripted runs with sessions of every class."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from pxp_harness.scripted import ScriptedAgent, split_script
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import Reply, RunSpec, Turn, interact
from pxp_tui.tasks import get_task

#: the blackboards written by older code (tests/fixtures/README.md)
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def unpacked(fixture: str, path: Path) -> Path:
    """``tests/fixtures/<fixture>`` (gzipped) written out at ``path``."""
    with gzip.open(FIXTURES / fixture) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


#: (name, tags from j = 1) with n = 6, k = 3: together every intelligibility class and stop reason
EVERY_CLASS: list[tuple[str, list[str]]] = [
    ("strong both", ["INIT", "RATIFY", "RATIFY"]),
    ("ultra machine", ["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"]),
    ("ultra both", ["INIT", "REVISE", "REVISE", "RATIFY", "RATIFY"]),
    ("human rejects", ["INIT", "REFUTE", "REFUTE", "REJECT"]),
    ("one-way human only", ["INIT", "RATIFY", "REFUTE", "RATIFY", "REFUTE", "RATIFY"]),
    ("one-way machine only", ["INIT", "REFUTE", "RATIFY", "REFUTE", "RATIFY", "REFUTE"]),
    ("no agreement", ["INIT", "REFUTE", "REFUTE", "REFUTE", "REFUTE", "REFUTE"]),
    ("ratify then reject", ["INIT", "RATIFY", "REFUTE", "REJECT"]),
]
#: a word that occurs in the explanations of one session only (by session order)
WORDS = ["acetylation", "esterification", "suzuki", "williamson", "amide", "reductive", "grignard", "mitsunobu"]


class WordyAgent(ScriptedAgent):
    """A scripted agent whose explanations name the session's word."""

    async def respond(self, turn: Turn) -> Reply:
        reply = await super().respond(turn)
        word = WORDS[turn.order % len(WORDS)]
        return Reply(reply.tag, reply.prediction, f"{word} step {turn.j} of {turn.instance.name}", reply.meta)


async def scripted_run(
    board: Blackboard,
    scripts: list[list[str]],
    *,
    human: str = "proxy",
    experiment: str | None = None,
    n: int = 6,
    dataset: str = "demo-drug",
    seed: int | None = None,
) -> int:
    """Record one run of ``scripts`` (one session each) on the DRUG demo's first instances."""
    if not board.has_dataset(dataset):
        board.add_dataset(dataset, "drug", get_task("drug").demo_rows(), source="bundled demo")
    ids = board.instance_ids(dataset)[: len(scripts)]
    run_id = board.create_run(
        RunConfig(
            dataset=dataset,
            model="script",
            checker="script",
            human_kind=HumanKind.PROXY if human == "proxy" else HumanKind.LIVE,
            expert=None if human == "proxy" else human,
            n=n,
            experiment=experiment,
            seed=seed,
        ),
        ids,
    )
    machine_scripts, human_scripts = zip(*(split_script(s) for s in scripts), strict=True)
    await interact(RunSpec(run_id, n=n, k=3), board.instances(ids), WordyAgent(machine_scripts), WordyAgent(human_scripts), board)
    return run_id


async def every_class_board(path: Path) -> Path:
    """A blackboard file with one run whose sessions cover every class and stop reason."""
    with Blackboard.open(path) as board:
        await scripted_run(board, [tags for _, tags in EVERY_CLASS])
    return path
