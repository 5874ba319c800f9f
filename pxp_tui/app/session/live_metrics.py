"""A run's intelligibility, kept up to date one finished session at a time (no rereading the run)."""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.protocol import RunCounts, curve, run_counts, session_flags
from pxp_tui.protocol.intelligibility import SessionTags


class LiveMetrics:
    """Counts and the intelligibility-versus-message-bound curve of a run, updated incrementally."""

    def __init__(self, n: int, total: int, finished: Sequence[SessionTags] = (), skipped: int = 0) -> None:
        self.n = n
        self.total = total
        self.skipped = skipped  # sessions the expert skipped: neither measured nor left to do
        self.counts: RunCounts = run_counts(finished)
        self.curve: list[RunCounts] = curve(finished, n)

    @property
    def done(self) -> int:
        return self.counts.sessions

    @property
    def left(self) -> int:
        return max(0, self.total - self.done - self.skipped)

    def add(self, tags: SessionTags) -> None:
        """Count one more finished session."""
        tags = list(tags)
        self.counts = self.counts.add(session_flags(tags))
        self.curve = [counts.add(session_flags(tags[:bound])) for bound, counts in enumerate(self.curve, start=1)]
