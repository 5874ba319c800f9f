"""The tag decision table, scheduling and the stop rule (DESIGN.md section 1)."""

from __future__ import annotations

import itertools

import pytest

from pxp_tui.protocol import Sender, StopReason, Tag, allowed_tags, changed, decide_tag, sender_at, stop_reason


@pytest.mark.parametrize(
    ("match", "agree", "is_changed", "expected"),
    [
        # MATCH and AGREE: RATIFY, whatever Changed
        (True, True, False, Tag.RATIFY),
        (True, True, True, Tag.RATIFY),
        # exactly one of them: REVISE if Changed else REFUTE
        (True, False, True, Tag.REVISE),
        (True, False, False, Tag.REFUTE),
        (False, True, True, Tag.REVISE),
        (False, True, False, Tag.REFUTE),
    ],
)
def test_decision_table_cells(match: bool, agree: bool, is_changed: bool, expected: Tag) -> None:
    for j in (2, 3, 4, 9):
        assert decide_tag(j, 3, match, agree, is_changed) is expected


@pytest.mark.parametrize("is_changed", [True, False])
def test_neither_match_nor_agree_rejects_only_after_k(is_changed: bool) -> None:
    k = 3
    before = Tag.REVISE if is_changed else Tag.REFUTE
    assert decide_tag(2, k, False, False, is_changed) is before
    assert decide_tag(3, k, False, False, is_changed) is before  # j = k: not yet
    assert decide_tag(4, k, False, False, is_changed) is Tag.REJECT  # j > k
    assert decide_tag(10, k, False, False, is_changed) is Tag.REJECT


def test_first_message_is_init() -> None:
    for match, agree, is_changed in itertools.product([True, False], repeat=3):
        assert decide_tag(1, 1, match, agree, is_changed) is Tag.INIT


def test_changed_is_not_match_or_not_agree() -> None:
    assert changed(True, True) is False
    assert changed(False, True) is True
    assert changed(True, False) is True
    assert changed(False, False) is True


def test_machine_speaks_at_odd_j() -> None:
    assert [sender_at(j) for j in range(1, 6)] == [
        Sender.MACHINE,
        Sender.HUMAN,
        Sender.MACHINE,
        Sender.HUMAN,
        Sender.MACHINE,
    ]
    with pytest.raises(ValueError):
        sender_at(0)


def test_allowed_tags_keep_reject_for_after_k() -> None:
    assert allowed_tags(1, 3) == (Tag.INIT,)
    assert Tag.REJECT not in allowed_tags(3, 3)
    assert Tag.REJECT in allowed_tags(4, 3)
    assert Tag.INIT not in allowed_tags(4, 3)


def test_invalid_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        decide_tag(0, 3, True, True, False)
    with pytest.raises(ValueError):
        decide_tag(2, 0, True, True, False)


class TestStopRule:
    def test_both_latest_ratify_stops(self) -> None:
        assert stop_reason(3, 10, Tag.RATIFY, Tag.RATIFY, Tag.RATIFY) is StopReason.RATIFIED

    def test_latest_not_ever(self) -> None:
        # the human ratified at j=2 but refuted at j=4: a machine RATIFY at j=5 does not stop
        assert stop_reason(5, 10, Tag.RATIFY, Tag.RATIFY, Tag.REFUTE) is None

    def test_machine_ratify_alone_does_not_stop(self) -> None:
        assert stop_reason(3, 10, Tag.RATIFY, Tag.RATIFY, Tag.REFUTE) is None
        assert stop_reason(1, 10, Tag.INIT, Tag.INIT, None) is None

    def test_reject_stops(self) -> None:
        assert stop_reason(4, 10, Tag.REJECT, Tag.REVISE, Tag.REJECT) is StopReason.REJECTED

    def test_bound_stops(self) -> None:
        assert stop_reason(10, 10, Tag.REFUTE, Tag.REVISE, Tag.REFUTE) is StopReason.BOUND
        assert stop_reason(9, 10, Tag.REFUTE, Tag.REFUTE, Tag.REFUTE) is None
        assert stop_reason(1, 1, Tag.INIT, Tag.INIT, None) is StopReason.BOUND

    def test_ratified_takes_precedence_over_bound(self) -> None:
        assert stop_reason(10, 10, Tag.RATIFY, Tag.RATIFY, Tag.RATIFY) is StopReason.RATIFIED


def test_tag_parse_is_forgiving_about_case_but_not_content() -> None:
    assert Tag.parse(" ratify ") is Tag.RATIFY
    with pytest.raises(ValueError, match="unknown tag"):
        Tag.parse("AGREE")
