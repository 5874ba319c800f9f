"""Which runs a report compares, and how they are grouped into the table's columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.blackboard.curves import run_curves
from pxp_tui.blackboard.metrics import counts_of, run_rows
from pxp_tui.blackboard.records import Run
from pxp_tui.protocol import RunCounts
from pxp_tui.protocol.repeats import CountsSpread, curve_spread, spread

#: how runs are grouped into columns
GROUPINGS = ("run", "experiment", "expert")


@dataclass(frozen=True)
class Column:
    """One column of the papers' table: one run, or the runs of an experiment or of an expert."""

    label: str
    runs: tuple[Run, ...]
    counts: tuple[RunCounts, ...]  # one per run
    curves: tuple[tuple[RunCounts, ...], ...]  # one per run: counts under bound j* = 1..n

    @property
    def run_ids(self) -> list[int]:
        return [r.id for r in self.runs]

    @property
    def table(self) -> CountsSpread:
        return spread(self.counts)

    @property
    def curve(self) -> list[CountsSpread]:
        return curve_spread(self.curves)


def select(board: Blackboard, run_ids: Sequence[int] | None = None, experiment: str | None = None) -> list[Run]:
    """The runs of a report: these ids, the runs of an experiment, or every run; in id order."""
    if run_ids and experiment:
        raise BlackboardError("give runs or an experiment, not both")
    if experiment:
        rows = board.runs(experiment=experiment)
        if not rows:
            raise BlackboardError(f"no experiment {experiment!r} in {board.path or 'the blackboard'}")
        return rows
    if run_ids:
        return [board.run(r) for r in sorted(set(run_ids))]
    return board.runs()


def _key(run: Run, by: str) -> tuple[tuple[Any, ...], str]:
    task = run.config.task.upper()
    if by == "experiment" and run.config.experiment:
        return ("e", run.config.experiment), f"{task} {run.config.experiment}"
    if by == "expert":
        return ("h", run.config.task, run.config.human_kind, run.human), f"{task} {run.human}"
    who = f" {run.human}" if run.config.human_kind.interactive else ""
    return ("r", run.id), f"{task} run {run.id}{who}"


def columns(board: Blackboard, runs: Sequence[Run], by: str = "run") -> list[Column]:
    """The table's columns: one per run, per experiment (runs without one stand alone) or per expert."""
    if by not in GROUPINGS:
        raise BlackboardError(f"group by one of {', '.join(GROUPINGS)}, not {by!r}")
    ids = [r.id for r in runs]
    counts = {row["run_id"]: counts_of(row) for row in run_rows(board, ids)} if ids else {}
    curves = run_curves(board, ids)
    groups: dict[Any, tuple[str, list[Run]]] = {}
    for run in runs:
        key, label = _key(run, by)
        groups.setdefault(key, (label, []))[1].append(run)
    labels = [label for label, _ in groups.values()]
    out = []
    for label, members in groups.values():
        if labels.count(label) > 1:  # an expert named like a kind ("proxy"): say which is which
            label = f"{label} ({members[0].config.human_kind})"
        if len(members) > 1:
            label = f"{label} ({len(members)} runs)"
        out.append(
            Column(
                label=label,
                runs=tuple(members),
                counts=tuple(counts[r.id] for r in members),
                curves=tuple(tuple(curves[r.id]) for r in members),
            )
        )
    return out
