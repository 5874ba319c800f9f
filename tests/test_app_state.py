"""The app's bookkeeping: live metrics equal the protocol's over the same sessions; the open session's stop rule."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pxp_tui.app.session.exchange import Exchange
from pxp_tui.app.session.live_metrics import LiveMetrics
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag, curve, run_counts

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


def exchange(n: int = 10, k: int = 3) -> Exchange:
    return Exchange(session_id=1, instance=None, order=0, total=1, n=n, k=k)


def add(ex: Exchange, *tags: str) -> None:
    for tag in tags:
        j = ex.next_j
        sender = Sender.MACHINE if j % 2 else Sender.HUMAN
        ex.add(Message(1, j, sender, Tag(tag), "y", "e"))


def test_the_open_session_stops_by_the_latest_tags_not_ever() -> None:
    ex = exchange()
    add(ex, "INIT", "RATIFY", "REFUTE")
    assert ex.stop is None and ex.next_sender is Sender.HUMAN and ex.next_j == 4
    add(ex, "REFUTE", "RATIFY")  # the human's latest is REFUTE: no stop
    assert ex.stop is None
    add(ex, "RATIFY")
    assert ex.stop is StopReason.RATIFIED and ex.next_sender is None


def test_the_open_session_stops_at_reject_and_at_the_bound() -> None:
    ex = exchange()
    add(ex, "INIT", "REFUTE", "REFUTE", "REJECT")
    assert ex.stop is StopReason.REJECTED
    ex = exchange(n=3)
    add(ex, "INIT", "REFUTE", "REVISE")
    assert ex.stop is StopReason.BOUND
