"""``pxp run --headless --repeat R``: R runs of one configuration as one experiment, concurrently."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from pxp_tui.cli.printing import SessionLines, resume_command, rules, say


def drive_experiment(board: Any, config: Any, args: argparse.Namespace, repeat: int) -> int:
    from pxp_tui.blackboard import WriteError
    from pxp_tui.common.models import model_label
    from pxp_tui.engine import AgentError
    from pxp_tui.engine.stopping import StopSignalError, until_stopped
    from pxp_tui.engine.writes import at_once
    from pxp_tui.report import columns, render
    from pxp_tui.runs.repeat import create_experiment, execute_all

    experiment, run_ids = create_experiment(board, config, repeat)
    first = board.run(run_ids[0])
    print(
        f"experiment {experiment}: runs {', '.join(map(str, run_ids))}: {first.config.task} on {first.config.dataset}, "
        f"machine {model_label(first.config.model)}, human {first.human}, n={first.config.n} k={first.config.k}{rules(first.config)}, "
        f"{len(first.plan)} sessions each -> {args.db}",
        flush=True,
    )

    def observer(run_id: int) -> SessionLines | None:
        return None if args.quiet else SessionLines(label=f"run {run_id}  ")

    try:
        outcome = asyncio.run(until_stopped(execute_all(board, run_ids, observer, store=at_once)))  # as `pxp run` does
    except StopSignalError as stop:
        say(f"pxp: experiment {experiment} paused: {stop.reason}; resume each run with: {resume_command('RUN_ID', args.db)}")
        return 128 + stop.signum
    except KeyboardInterrupt:
        print(
            f"pxp: experiment {experiment} interrupted; resume each run with: {resume_command('RUN_ID', args.db)}",
            file=sys.stderr,
        )
        return 130
    failed = {r: e for r, e in outcome.items() if e is not None}
    for run_id, exc in failed.items():
        if not isinstance(exc, (AgentError, WriteError)):
            raise exc
        print(
            f"pxp: run {run_id} paused: {getattr(exc, 'cause', exc)}\nresume with: {resume_command(run_id, args.db)}",
            file=sys.stderr,
        )
    runs = columns.select(board, experiment=experiment)
    table = columns.columns(board, runs, "run") + columns.columns(board, runs, "experiment")
    print()
    print(render.table_markdown(table))
    return 1 if failed else 0
