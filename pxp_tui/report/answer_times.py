"""The live expert's time per answer (``messages.answer_ms``): the median per run and per expert."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from pxp_tui.blackboard.records import Run


def _seconds(times_ms: Sequence[float]) -> str:
    return f"{statistics.median(times_ms) / 1000:.1f}" if times_ms else ""


def rows(runs: Sequence[Run], times: Mapping[int, Sequence[float]]) -> list[list[Any]]:
    """Header, then one row per run that has measured answers, then one per expert (all their runs)."""
    out: list[list[Any]] = [["by", "who", "runs", "answers", "median s", "min s", "max s"]]
    by_expert: dict[str, list[tuple[int, Sequence[float]]]] = {}
    for run in runs:
        found = times.get(run.id, ())
        if not found:
            continue
        out.append(["run", f"{run.id} ({run.human})", 1, len(found), _seconds(found), *_range(found)])
        by_expert.setdefault(run.human, []).append((run.id, found))
    for expert, measured in by_expert.items():
        every = [ms for _, found in measured for ms in found]
        out.append(["expert", expert, len(measured), len(every), _seconds(every), *_range(every)])
    return out


def _range(times_ms: Sequence[float]) -> list[str]:
    return [f"{min(times_ms) / 1000:.1f}", f"{max(times_ms) / 1000:.1f}"]


def markdown(runs: Sequence[Run], times: Mapping[int, Sequence[float]]) -> list[str]:
    """The report's section (its heading, a sentence and the table)."""
    from pxp_tui.report.render import markdown_table

    table = rows(runs, times)
    parts = ["## Time per answer"]
    if len(table) == 1:
        return [*parts, "No answer timed: these runs have no live expert's answers with a time."]
    return [
        *parts,
        "The live expert's time on each answer, from their turn shown to send (`messages.answer_ms`); "
        "skipped instances have no answer.",
        markdown_table(table, right_from=2),
    ]
