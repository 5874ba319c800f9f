"""Intelligibility definitions (DESIGN.md section 2), the papers' examples, and properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pxp_tui.protocol import RunCounts, Sender, Tag, curve, run_counts, session_flags

M, H = Sender.MACHINE, Sender.HUMAN


def seq(*tags: str) -> list[tuple[Sender, Tag]]:
    """Tags in message order; senders alternate machine, human, ... from j = 1."""
    return [(M if i % 2 == 0 else H, Tag(t)) for i, t in enumerate(tags)]


def test_ratify_ratify_is_strong_for_both_ultra_for_neither() -> None:
    f = session_flags(seq("INIT", "RATIFY", "RATIFY"))
    assert f.one_way_machine and f.one_way_human and f.two_way
    assert f.strong_machine and f.strong_human
    assert not f.ultra_strong_machine and not f.ultra_strong_human


def test_revise_revise_is_ultra_strong_for_both() -> None:
    f = session_flags(seq("INIT", "REVISE", "REVISE", "RATIFY", "RATIFY"))
    assert f.ultra_strong_machine and f.ultra_strong_human and f.two_way


def test_refute_then_revise_is_ultra_strong_for_machine_only() -> None:
    f = session_flags(seq("INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"))
    assert f.two_way
    assert f.strong_machine and f.ultra_strong_machine
    assert not f.strong_human and not f.ultra_strong_human


def test_init_is_excluded() -> None:
    # a session cut at j = 1 has no tags for either agent: nothing holds
    f = session_flags(seq("INIT"))
    assert not any(vars(f).values())


def test_reject_kills_one_way_even_after_ratify() -> None:
    f = session_flags(seq("INIT", "RATIFY", "REFUTE", "REJECT"))
    assert not f.one_way_human and f.one_way_machine is False
    assert not f.two_way


def test_one_way_is_not_the_last_tag() -> None:
    # the reference code's defect: "last human tag is RATIFY". A REVISE earlier is enough.
    f = session_flags(seq("INIT", "REVISE", "REFUTE", "REFUTE"))
    assert f.one_way_human
    assert not f.one_way_machine


def test_run_counts_and_proportions() -> None:
    counts = run_counts([seq("INIT", "RATIFY", "RATIFY"), seq("INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY")])
    assert counts.sessions == 2
    assert counts.one_way_human == 2 and counts.strong_human == 1 and counts.ultra_strong_machine == 1
    assert counts.proportion("strong_human") == 0.5
    assert RunCounts().proportion("two_way") == 0.0


def test_curve_grows_with_the_bound() -> None:
    sessions = [seq("INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"), seq("INIT", "RATIFY", "RATIFY")]
    points = curve(sessions, 5)
    assert [p.one_way_human for p in points] == [0, 1, 1, 2, 2]
    assert [p.one_way_machine for p in points] == [0, 0, 2, 2, 2]
    assert points[-1] == run_counts(sessions)


tags = st.sampled_from([Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT])
sessions_strategy = st.lists(st.lists(tags, max_size=9).map(lambda t: [Tag.INIT, *t]), min_size=1, max_size=30)


def as_session(tags: list[Tag]) -> list[tuple[Sender, Tag]]:
    return [(M if i % 2 == 0 else H, t) for i, t in enumerate(tags)]


@settings(max_examples=300, deadline=None)
@given(sessions_strategy)
def test_properties_of_random_runs(raw: list[list[Tag]]) -> None:
    sessions = [as_session(s) for s in raw]
    counts = run_counts(sessions)
    assert counts.two_way <= min(counts.one_way_human, counts.one_way_machine)
    assert counts.ultra_strong_human <= counts.strong_human
    assert counts.ultra_strong_machine <= counts.strong_machine
    for s in sessions:
        f = session_flags(s)
        assert not f.ultra_strong_human or f.strong_human
        assert not f.ultra_strong_machine or f.strong_machine
        # strong without REJECT implies one-way
        assert not f.strong_machine or f.one_way_machine
    n = max(len(s) for s in sessions)
    points = curve(sessions, n)
    assert points[-1] == counts
    assert all(p.sessions == len(sessions) for p in points)
