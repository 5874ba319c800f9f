"""The app's bookkeeping: live metrics equal the protocol's over the same sessions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pxp_tui.app.session.live_metrics import LiveMetrics
from pxp_tui.protocol import Sender, Tag, curve, run_counts

_AFTER_INIT = st.sampled_from([Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT])


@st.composite
def sessions(draw: st.DrawFn) -> list[tuple[Sender, Tag]]:
    tags = [Tag.INIT, *draw(st.lists(_AFTER_INIT, max_size=9))]
    return [(Sender.MACHINE if j % 2 else Sender.HUMAN, tag) for j, tag in enumerate(tags, start=1)]


@given(st.lists(sessions(), max_size=12), st.lists(sessions(), max_size=12), st.integers(1, 10))
def test_live_metrics_updated_session_by_session_equal_a_full_recount(done, later, n) -> None:
    metrics = LiveMetrics(n, total=len(done) + len(later) + 3, finished=done)
    for tags in later:
        metrics.add(tags)
    everything = done + later
    assert metrics.counts == run_counts(everything)
    assert metrics.curve == curve(everything, n)
    assert (metrics.done, metrics.left) == (len(everything), 3)


def test_hypothesis_runs_here_without_a_deadline_or_a_too_slow_check() -> None:
    """Both are wall-clock measures: a loaded machine failed this file's property once on "input generation is slow"
    (one draw of 1.6 s). tests/conftest.py loads the suite's profile before the first module using Hypothesis."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
