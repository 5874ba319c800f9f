"""``pxp metrics`` names each run's column with who answered: the expert's name, or the human's kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.cli_helpers import offline_run, pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run


def test_each_run_is_named_with_its_expert(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    offline_run(capsys, db_path, "--limit", "1")
    with Blackboard.open(db_path) as board:
        create_run(board, RunConfig(human_kind=HumanKind.LIVE, expert="dr-smith o.k", limit=1))
    code, out, err = pxp(capsys, "metrics", "--db", db_path)
    assert code == 0, err
    header = out.splitlines()[0]
    assert "run 1 DRUG proxy" in header and "run 2 DRUG dr-smith o.k" in header
