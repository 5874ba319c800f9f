"""Agreement between two experts who answered the same instances (the journal's DRUG-h1 and DRUG-h2): on their
first reply's tag (their judgement of the machine's opening answer) and on their own prediction, as Cohen's kappa
(scikit-learn's ``cohen_kappa_score``) and raw agreement, with the number of instances both answered.

scikit-learn is imported here only, when a report has two experts to compare.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from pxp_tui.blackboard.records import Run


@dataclass(frozen=True)
class Agreement:
    """Two experts on one task: how many instances both answered, and their agreement on each measure."""

    task: str
    first: str
    second: str
    shared: int
    #: measure ("tag", "prediction") -> (Cohen's kappa, or None where undefined; raw agreement)
    measures: dict[str, tuple[float | None, float]]


def kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters' labels (scikit-learn); None where it is undefined (both gave one same label
    throughout: chance agreement is 1)."""
    import warnings

    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when chance agreement is 1
        value = float(cohen_kappa_score(list(first), list(second)))
    return None if math.isnan(value) else value


def raw(first: Sequence[str], second: Sequence[str]) -> float:
    return sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def between(runs: Sequence[Run], replies: Sequence[dict[str, Any]], normalise: Callable[[str, str], str]) -> list[Agreement]:
    """Every pair of experts (live humans, by name, per task) who answered at least one instance in common, in
    the order they first appear; an expert's first answer to an instance counts (their earliest run).
    ``normalise(task, prediction)`` is the task's canonical form (what MATCH compares)."""
    by_run = {r.id: r for r in runs if r.config.human_kind.interactive}
    answers: dict[tuple[str, str], dict[int, tuple[str, str]]] = {}
    for row in replies:
        run = by_run.get(row["run_id"])
        if run is None:
            continue
        task = run.config.task
        answers.setdefault((task, run.human), {}).setdefault(
            row["instance_id"], (row["tag"], normalise(task, row["prediction"] or ""))
        )
    out = []
    for (task_a, a), (task_b, b) in combinations(answers, 2):
        if task_a != task_b:
            continue
        shared = sorted(set(answers[(task_a, a)]) & set(answers[(task_b, b)]))
        if not shared:
            continue
        measures = {}
        for index, measure in enumerate(("tag", "prediction")):
            first = [answers[(task_a, a)][i][index] for i in shared]
            second = [answers[(task_b, b)][i][index] for i in shared]
            measures[measure] = (kappa(first, second), raw(first, second))
        out.append(Agreement(task_a, a, b, len(shared), measures))
    return out


def rows(found: Sequence[Agreement]) -> list[list[Any]]:
    """The agreements as a table (header first), for Markdown and CSV."""
    table: list[list[Any]] = [["task", "expert", "expert ", "shared instances", "measure", "Cohen's kappa", "raw agreement"]]
    for item in found:
        for measure, (value, share) in item.measures.items():
            shown = "undefined (one label throughout)" if value is None else f"{value:.2f}"
            table.append([item.task.upper(), item.first, item.second, item.shared, measure, shown, f"{share:.2f}"])
    return table
