"""Repeated runs of one configuration: median with min and max (DESIGN.md section 2).

The papers report controlled experiments as the median of 5 repetitions, and draw min and max as
error bars on the "intelligibility vs length" figure.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pxp_tui.protocol.intelligibility import CLASSES, RunCounts


@dataclass(frozen=True)
class Spread:
    """The median of some counts, with their minimum and maximum."""

    median: float
    low: int
    high: int

    @classmethod
    def of(cls, values: Sequence[int]) -> Spread:
        if not values:
            raise ValueError("a spread needs at least one value")
        return cls(float(statistics.median(values)), min(values), max(values))


@dataclass(frozen=True)
class CountsSpread:
    """Counts of ``runs`` repeated runs, class by class (the papers' table entry for an experiment)."""

    runs: int
    sessions: Spread
    classes: Mapping[str, Spread]

    def proportion(self, name: str) -> float:
        """Median count over median number of sessions (0 for no sessions)."""
        total = self.sessions.median
        return self.classes[name].median / total if total else 0.0


def spread(counts: Sequence[RunCounts]) -> CountsSpread:
    """Median, min and max of each class over repeated runs."""
    return CountsSpread(
        runs=len(counts),
        sessions=Spread.of([c.sessions for c in counts]),
        classes={name: Spread.of([getattr(c, name) for c in counts]) for name in CLASSES},
    )


def curve_spread(curves: Sequence[Sequence[RunCounts]]) -> list[CountsSpread]:
    """Per message bound ``j*``, the spread over the runs whose bound ``n`` reaches ``j*``."""
    longest = max((len(c) for c in curves), default=0)
    return [spread([c[j] for c in curves if j < len(c)]) for j in range(longest)]
