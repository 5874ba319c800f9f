"""Runs as the blackboard returns them, made without a blackboard, for the report's pure tests."""

from __future__ import annotations

from typing import Any

from pxp_tui.blackboard.records import Run
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import RunStatus


def a_run(run_id: int, task: str = "drug", expert: str | None = None, kind: HumanKind = HumanKind.LIVE, **config: Any) -> Run:
    """Run ``run_id`` of ``task``, finished, answered by ``expert`` (a live expert unless ``kind`` says otherwise),
    with any other field of its configuration as given."""
    run_config = RunConfig(task=task, human_kind=kind, expert=expert, **config)
    return Run(id=run_id, uid=f"u{run_id}", config=run_config, status=RunStatus.DONE, error=None, plan=(1, 2, 3))
