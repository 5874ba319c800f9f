"""The PXP papers' own worked examples and footnotes, written from the papers' text (docs/FIDELITY.md, PXP section)."""

from __future__ import annotations

import pytest

from pxp_tui.protocol import Sender, Tag, session_flags

M, H = Sender.MACHINE, Sender.HUMAN


def seq(*tags: str) -> list[tuple[Sender, Tag]]:
    return [(M if i % 2 == 0 else H, Tag(t)) for i, t in enumerate(tags)]


def test_the_conferences_observed_sequence_is_one_way_for_the_human_only() -> None:
    """Conference, Sec. 4.3: <(s1,1,m,INIT), (s1,2,h,REFUTE), (s1,3,m,REFUTE), (s1,4,h,RATIFY)>. The human's tags
    hold a RATIFY and no REJECT (Def. 1); the machine's, INIT excluded, are one REFUTE."""
    flags = session_flags(seq("INIT", "REFUTE", "REFUTE", "RATIFY"))
    assert flags.one_way_human and not flags.one_way_machine and not flags.two_way
    assert not flags.strong_human  # a REFUTE among the human's tags (Def. 2: every element)


def test_the_hypothetical_longer_strong_sequence_is_ultra_strong_for_both() -> None:
    """Both papers, Sec. 4.3 / 5.4: "<INIT_m, REVISE_h, REVISE_m, RATIFY_h, RATIFY_m>" is the "more interesting" strong
    intelligibility: strong for both, and ultra-strong (a REVISE) for both."""
    flags = session_flags(seq("INIT", "REVISE", "REVISE", "RATIFY", "RATIFY"))
    assert flags.strong_human and flags.strong_machine and flags.ultra_strong_human and flags.ultra_strong_machine


def test_footnote_5_immediate_ratification_is_strong_but_degenerate() -> None:
    """Footnote 5 (conference) / 2 (journal): the strongly intelligible sessions are exactly <INIT_m, RATIFY_h,
    RATIFY_m>: strong for both, ultra-strong for neither (no REVISE)."""
    flags = session_flags(seq("INIT", "RATIFY", "RATIFY"))
    assert flags.strong_human and flags.strong_machine and flags.two_way
    assert not flags.ultra_strong_human and not flags.ultra_strong_machine


#: the published tables: (sessions, 1-way human, 1-way machine, 2-way, strong h, strong m, ultra h, ultra m)
CONFERENCE = {"RAD": (20, 16, 16, 16, 13, 14, 0, 0), "DRUG": (20, 18, 20, 18, 11, 18, 0, 7)}
JOURNAL = {
    "RAD": (20, 19, 20, 19, 4, 19, 0, 15),
    "DRUG": (20, 18, 20, 18, 8, 19, 0, 10),
    "DRUG-h1": (20, 19, 20, 19, 12, 20, 0, 8),
    "DRUG-h2": (20, 17, 19, 17, 7, 18, 0, 11),
}


@pytest.mark.parametrize(("column", "row"), [*CONFERENCE.items(), *JOURNAL.items()])
def test_the_published_tables_obey_the_definitions_as_implemented(column: str, row: tuple[int, ...]) -> None:
    """ "The number of sessions that are 2-way intelligible clearly cannot be more than the lower number of 1-way
    intelligible sessions"; ultra-strong implies strong (Def. 2). Every published column satisfies what the
    implementation guarantees of every session: checked over all sessions of up to 6 tags."""
    total, one_h, one_m, two, strong_h, strong_m, ultra_h, ultra_m = row
    assert two <= min(one_h, one_m) and ultra_h <= strong_h and ultra_m <= strong_m and max(row) <= total
    import itertools

    replies = [Tag.RATIFY, Tag.REFUTE, Tag.REVISE, Tag.REJECT]
    for length in range(1, 6):
        for tags in itertools.product(replies, repeat=length):
            flags = session_flags([(M, Tag.INIT), *((H if i % 2 == 0 else M, t) for i, t in enumerate(tags))])
            assert flags.two_way == (flags.one_way_human and flags.one_way_machine)
            assert flags.ultra_strong_human <= flags.strong_human and flags.ultra_strong_machine <= flags.strong_machine
