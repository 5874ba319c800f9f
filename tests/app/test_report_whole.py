"""The whole report, word for word, as a reader gets it: every section's heading and prose, the tables' headings and
alignment, the columns' labels (an experiment's runs, an expert's, seeds pooled), the curves counted from j* = 1, the
agreement between two experts and the machine's performance.

The expected text is in ``tests/fixtures/report/``; after a deliberate change, ``pytest --snapshot-update`` rewrites
it from what the report now says, and the diff is reviewed like any other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pxp_harness.boards import EVERY_CLASS, FIXTURES, scripted_run
from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard, evaluations

SCRIPTS = [tags for _, tags in EVERY_CLASS]
EXPECTED = FIXTURES / "report"


async def reading_board(db: Path) -> None:
    """Runs 1-2: experiment "E", two seeds, 3 and 6 sessions (medians of .5); 3: h1 and 4: h2 on the same
    instances; 5: an expert named "proxy" beside the proxy of run 6; 7: h1 again, on another dataset with another
    bound; run 1 measured on a test split."""
    with Blackboard.open(db) as board:
        await scripted_run(board, SCRIPTS[:3], experiment="E", seed=1)
        await scripted_run(board, SCRIPTS[:6], experiment="E", seed=2)
        await scripted_run(board, SCRIPTS[:4], human="h1")
        await scripted_run(board, SCRIPTS[1:5], human="h2")
        await scripted_run(board, SCRIPTS[:2], human="proxy-expert")
        await scripted_run(board, SCRIPTS[:2])
        await scripted_run(board, SCRIPTS[:3], human="h1", dataset="other-drug", n=5)
        board.db.execute("UPDATE runs SET expert = 'proxy' WHERE id = 5")
        ids = [r[0] for r in board.db.execute("SELECT id FROM instances LIMIT 4")]
        for phase, correct in (("start", [True, False, False, False]), ("end", [True, True, True, False])):
            items = [{"instance_id": i, "correct": c, "agreed": c} for i, c in zip(ids, correct, strict=True)]
            evaluations.record(board, 1, phase, "test", items, sessions=0 if phase == "start" else 3, context_sessions=0)
        board.db.conn.commit()


def as_read(text: str, db: Path) -> str:
    """The report with what differs between two writings of it (the file's place, the runs' times) put as words."""
    text = text.replace(str(db), "BLACKBOARD")
    return re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.]+(?:[+-]\d\d:\d\d|Z)?", "TIME", text)


def check(name: str, text: str, request: pytest.FixtureRequest) -> None:
    path = EXPECTED / name
    if request.config.getoption("--snapshot-update", default=False):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"the report differs from {path} (pytest --snapshot-update rewrites it)"


async def test_the_report_by_experiment_reads_word_for_word(db_path: Path, capsys, request) -> None:
    await reading_board(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--by", "experiment")
    assert code == 0, err
    check("by-experiment.md", as_read(out, db_path), request)


async def test_the_report_by_expert_with_its_figures_reads_word_for_word(db_path: Path, tmp_path: Path, capsys, request) -> None:
    await reading_board(db_path)
    code, _out, err = pxp(capsys, "report", "--db", db_path, "--by", "expert", "--out", tmp_path / "report")
    assert code == 0, err
    check("by-expert-with-figures.md", as_read((tmp_path / "report" / "report.md").read_text(encoding="utf-8"), db_path), request)
