"""Which runs a report compares, and how they are grouped into the table's columns."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.blackboard.curves import run_curves
from pxp_tui.blackboard.metrics import counts_of, run_rows
from pxp_tui.blackboard.records import Run
from pxp_tui.config import RunConfig
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
    def seeds(self) -> list[int | None]:
        """The runs' ``--seed``s (None: dataset order), each once, in run order: a column may pool runs whose instances
        came in another order (:data:`NOT_CONFIGURATION`), and the report says so."""
        return list(dict.fromkeys(r.config.seed for r in self.runs))

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
    """The run's column (runs of one key share it) and the column's label. The keys never meet across kinds: an
    experiment's is its name (text), a run's its id (a number), an expert's three items long."""
    task = run.config.task.upper()
    if by == "experiment" and run.config.experiment:
        return (run.config.experiment,), f"{task} {run.config.experiment}"
    if by == "expert":
        return (run.config.task, run.config.human_kind, run.human), f"{task} {run.human}"
    who = f" {run.human}" if run.config.human_kind.interactive else ""
    return (run.id,), f"{task} run {run.id}{who}"


#: what does not make two runs different experiments: how they were named, grouped, or reached their models
NOT_CONFIGURATION = frozenset(
    {"experiment", "preset", "preset_overrides", "effective", "timeout", "retries", "max_reply", "api_base", "checker_api_base",
     "human_api_base", "seed"}
)  # fmt: skip


def differences(runs: Sequence[Run]) -> dict[str, list[Any]]:
    """The configuration fields on which ``runs`` differ (field -> the values, in run order, without repeats): runs
    that differ on any cannot be one column of repetitions (a seed may differ: repetitions are re-samplings)."""
    out: dict[str, list[Any]] = {}
    for f in fields(RunConfig):
        if f.name in NOT_CONFIGURATION:
            continue
        values = list(dict.fromkeys(getattr(r.config, f.name) for r in runs))
        if len(values) > 1:
            out[f.name] = values
    return out


def describe_differences(found: dict[str, list[Any]]) -> str:
    """``found`` as a reader of an error reads it: each option as spelt on the command line, with its values."""
    return "; ".join(f"{name.replace('_', '-')} {' / '.join(map(_value, values))}" for name, values in found.items())


def _value(value: Any) -> str:
    return "none" if value is None else str(value)


def _split(label: str, members: list[Run]) -> list[tuple[str, list[Run]]]:
    """``members`` as groups of one configuration each, labelled with what sets them apart (never pooled)."""
    found = differences(members)
    if not found:
        return [(label, members)]
    groups: dict[tuple[tuple[str, Any], ...], list[Run]] = {}
    for run in members:
        groups.setdefault(tuple((name, getattr(run.config, name)) for name in found), []).append(run)
    return [(f"{label} ({', '.join(f'{n} {v}' for n, v in key)})", runs) for key, runs in groups.items()]


def columns(board: Blackboard, runs: Sequence[Run], by: str = "run") -> list[Column]:
    """The table's columns: one per run, per experiment (runs without one stand alone) or per expert; a group whose
    runs differ in dataset or configuration is split into one column per configuration."""
    if by not in GROUPINGS:
        raise BlackboardError(f"group by one of {', '.join(GROUPINGS)}, not {by!r}")
    groups: dict[Any, tuple[str, list[Run]]] = {}
    for run in runs:
        key, label = _key(run, by)
        groups.setdefault(key, (label, []))[1].append(run)
    labels = [label for label, _ in groups.values()]
    named = []
    for label, members in groups.values():
        if labels.count(label) > 1:  # an expert named like a kind ("proxy"): say which is which
            label = f"{label} ({members[0].config.human_kind})"
        for part_label, part in _split(label, members):
            named.append((f"{part_label} ({len(part)} runs)" if len(part) > 1 else part_label, part))
    return build(board, named)


def build(board: Blackboard, named: Sequence[tuple[str, Sequence[Run]]]) -> list[Column]:
    """The columns of these (label, runs) pairs, in order."""
    ids = sorted({r.id for _, members in named for r in members})
    counts = {row["run_id"]: counts_of(row) for row in run_rows(board, ids)} if ids else {}
    curves = run_curves(board, ids)
    return [
        Column(
            label=label,
            runs=tuple(members),
            counts=tuple(counts[r.id] for r in members),
            curves=tuple(tuple(curves[r.id]) for r in members),
        )
        for label, members in named
    ]


_RANGE = re.compile(r"^(?:runs?\s+)?(\d+)(?:\s*-\s*(\d+))?$")


def parse_column(text: str) -> tuple[str, list[str]]:
    """``pxp report --column``'s value: ``LABEL=WHAT``, WHAT a comma-separated list of run ids (``3``, ``run 3``,
    ``3-7``) and experiment names; (label, items). ValueError with the reason."""
    label, equals, what = text.partition("=")
    label, items = label.strip(), [i.strip() for i in what.split(",") if i.strip()]
    if not equals or not label or not items:
        raise ValueError(f'--column {text!r}: write LABEL=RUNS, e.g. "RAD=run 3", "DRUG=4-8" or "DRUG-h1=EXPERIMENT"')
    return label, items


def named_columns(board: Blackboard, specs: Sequence[str]) -> list[Column]:
    """The columns ``--column LABEL=WHAT`` name, in the order given. BlackboardError for an unknown run or experiment,
    a label given twice, or a column whose runs differ in dataset or configuration (never pooled)."""
    named: list[tuple[str, list[Run]]] = []
    for spec in specs:
        label, items = parse_column(spec)
        if label in (n for n, _ in named):
            raise BlackboardError(f"--column {label!r} is given twice")
        members: dict[int, Run] = {}
        for item in items:
            for run in _runs_of(board, item):
                members.setdefault(run.id, run)
        runs = [members[i] for i in sorted(members)]
        found = differences(runs)
        if found:
            raise BlackboardError(
                f"--column {label!r} pools runs that differ ({describe_differences(found)}): a column is repetitions of one "
                "configuration; give each its own --column"
            )
        named.append((label, runs))
    return build(board, named)


def _runs_of(board: Blackboard, item: str) -> list[Run]:
    found = _RANGE.match(item)
    if found:
        low, high = int(found.group(1)), int(found.group(2) or found.group(1))
        if high < low:
            raise BlackboardError(f"--column: the range {item!r} runs backwards")
        return [board.run(i) for i in range(low, high + 1)]
    name = item.removeprefix("experiment ").strip()
    runs = board.runs(experiment=name)
    if not runs:
        raise BlackboardError(f"--column: {item!r} is neither a run id nor an experiment of {board.path or 'the blackboard'}")
    return runs
