"""Agreement between two experts who answered the same instances (the journal's DRUG-h1 and DRUG-h2): on their
first reply's tag (their judgement of the machine's opening answer) and on their own prediction, as Cohen's kappa
(scikit-learn's ``cohen_kappa_score``) and raw agreement.

Each expert judged the opening of their own run, which differs between runs when the model samples: two judgements
of different answers are not two ratings of one thing. So each measure is given twice, each with its number of
instances: over the instances where both judged the same opening (the same prediction, as MATCH compares it, and the
same explanation, word for word), and over every instance both answered.

scikit-learn is imported here only, when a report has two experts to compare.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from pxp_tui.blackboard.records import Run


@dataclass(frozen=True)
class Agreement:
    """Two experts on one task: the instances both answered, those of them where both judged the same opening, and
    their agreement on each measure over each."""

    task: str
    first: str
    second: str
    shared: int
    same_opening: int
    #: measure ("tag", "prediction") -> ((kappa, raw) over the same openings, (kappa, raw) over every shared instance);
    #: kappa None where undefined, both None where there is no instance
    measures: dict[str, tuple[tuple[float | None, float | None], tuple[float | None, float | None]]]


def kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters' labels (scikit-learn); None where it is undefined (both gave one same label
    throughout: chance agreement is 1)."""
    import warnings

    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        # scikit-learn warns (UserWarning, UndefinedMetricWarning, RuntimeWarning: the release decides) where kappa is
        # undefined; the report says so in its own words, and nothing else is printed on the expert's terminal
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(list(first), list(second)))
    return None if math.isnan(value) else value


def raw(first: Sequence[str], second: Sequence[str]) -> float:
    """The share of instances on which two raters gave the same label (their labels in one order, as long)."""
    return float(sum(map(operator.eq, first, second))) / len(first)


def _figures(first: Sequence[str], second: Sequence[str]) -> tuple[float | None, float | None]:
    return (kappa(first, second), raw(first, second)) if first else (None, None)


#: an expert's first answer to an instance: (their tag, their prediction, the opening they judged)
Answer = tuple[str, str, tuple[str, str]]


def _tag(answer: Answer) -> str:
    return answer[0]


def _prediction(answer: Answer) -> str:
    return answer[1]


def between(runs: Sequence[Run], replies: Sequence[dict[str, Any]], normalise: Callable[[str, str], str]) -> list[Agreement]:
    """Every pair of experts (live humans, by name, per task) who answered at least one instance in common, in
    the order they first appear; an expert's first answer to an instance counts (their earliest run).
    ``normalise(task, prediction)`` is the task's canonical form (what MATCH compares)."""
    by_run = {r.id: r for r in runs if r.config.human_kind.interactive}
    answers: dict[tuple[str, str], dict[int, Answer]] = {}
    for row in replies:
        run = by_run.get(row["run_id"])
        if run is None:
            continue
        task = run.config.task
        opening = (normalise(task, row.get("opening_prediction") or ""), (row.get("opening_explanation") or "").strip())
        answers.setdefault((task, run.human), {}).setdefault(
            row["instance_id"], (row["tag"], normalise(task, row["prediction"] or ""), opening)
        )
    out = []
    for (task_a, a), (task_b, b) in combinations(answers, 2):
        if task_a != task_b:
            continue
        ours, theirs = answers[(task_a, a)], answers[(task_b, b)]
        shared = sorted(set(ours) & set(theirs))
        if not shared:
            continue
        same = [i for i in shared if ours[i][2] == theirs[i][2]]
        measures = {}
        for measure, pick in (("tag", _tag), ("prediction", _prediction)):
            over = [
                _figures([pick(ours[i]) for i in instances], [pick(theirs[i]) for i in instances]) for instances in (same, shared)
            ]
            measures[measure] = (over[0], over[1])
        out.append(Agreement(task_a, a, b, len(shared), len(same), measures))
    return out


def _shown(value: float | None, none: str) -> str:
    return none if value is None else f"{value:.2f}"


def rows(found: Sequence[Agreement]) -> list[list[Any]]:
    """The agreements as a table (header first), for Markdown and CSV: each measure over the instances where both
    experts judged the same opening, then over every instance both answered, each with its count."""
    table: list[list[Any]] = [
        ["task", "expert", "expert ", "measure", "same opening: instances", "Cohen's kappa", "raw agreement",
         "all shared: instances", "Cohen's kappa ", "raw agreement "]
    ]  # fmt: skip
    for item in found:
        for measure, figures in item.measures.items():
            row: list[Any] = [item.task.upper(), item.first, item.second, measure]
            for count, (value, share) in ((item.same_opening, figures[0]), (item.shared, figures[1])):
                undefined = "undefined (one label throughout)" if count else "none"
                row += [count, _shown(value, undefined), _shown(share, "none")]
            table.append(row)
    return table
