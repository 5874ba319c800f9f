"""Review queries of the blackboard: filters by class and text, sorting, paging, replay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pxp_harness.boards import EVERY_CLASS, WORDS, every_class_board
from pxp_tui.blackboard import Blackboard, BlackboardError, review
from pxp_tui.blackboard.schema import CLASSES
from pxp_tui.protocol import Sender, Tag, session_flags
from pxp_tui.tasks import get_task


def expected_tags(tags: list[str]) -> list[tuple[Sender, Tag]]:
    return [(Sender.MACHINE if j % 2 == 0 else Sender.HUMAN, Tag(t)) for j, t in enumerate(tags)]


@pytest.fixture
async def board(db_path: Path):
    await every_class_board(db_path)
    with Blackboard.open(db_path, create=False, readonly=True) as opened:
        yield opened


def all_rows(board: Blackboard, **query) -> list[review.SessionRow]:
    return review.sessions(board, 1, review.Query(limit=1000, **query)).rows


def test_the_session_list_shows_tags_flags_and_stop_reasons(board: Blackboard) -> None:
    rows = all_rows(board)
    assert [list(r.tags) for r in rows] == [expected_tags(tags) for _, tags in EVERY_CLASS]
    assert [r.flags for r in rows] == [session_flags(expected_tags(tags)) for _, tags in EVERY_CLASS]
    assert [r.n_messages for r in rows] == [len(tags) for _, tags in EVERY_CLASS]
    assert all(r.stop_reason in {"ratified", "rejected", "bound"} for r in rows)
    assert rows[0].instance == "Paracetamol"  # the instance's name, not its id


@pytest.mark.parametrize("kind", CLASSES)
def test_a_class_filter_keeps_exactly_the_sessions_of_that_class(board: Blackboard, kind: str) -> None:
    wanted = [i for i, (_, tags) in enumerate(EVERY_CLASS) if getattr(session_flags(expected_tags(tags)), kind)]
    page = review.sessions(board, 1, review.Query(kind=kind))
    assert [r.order for r in page.rows] == wanted
    assert page.total == len(wanted)


@pytest.mark.parametrize(("kind", "last"), [("rejected", "REJECT"), ("ratified", "RATIFY")])
def test_stop_filters(board: Blackboard, kind: str, last: str) -> None:
    rows = all_rows(board, kind=kind)
    assert rows and all(r.stop_reason == kind and r.tags[-1][1] == Tag(last) for r in rows)


def test_hit_the_bound_filter(board: Blackboard) -> None:
    rows = all_rows(board, kind="bound")
    assert rows and all(r.n_messages == 6 for r in rows)
    assert {r.order for r in rows} == {i for i, (_, t) in enumerate(EVERY_CLASS) if len(t) == 6}


def test_text_filter_searches_explanations_case_insensitively(board: Blackboard) -> None:
    assert [r.order for r in all_rows(board, text=WORDS[2].upper())] == [2]
    assert all_rows(board, text="%") == []  # a wildcard character is text, not a pattern
    both = all_rows(board, kind="two_way", text="step 5")
    assert both and all(r.flags.two_way and r.n_messages >= 5 for r in both)


@pytest.mark.parametrize("sort", list(review.SORTS))
def test_every_column_sorts_both_ways(board: Blackboard, sort: str) -> None:
    up = all_rows(board, sort=sort)
    down = all_rows(board, sort=sort, descending=True)
    assert sorted(r.session_id for r in up) == sorted(r.session_id for r in down)
    if sort == "messages":
        assert [r.n_messages for r in up] == sorted(r.n_messages for r in up)
        assert [r.n_messages for r in down] == sorted((r.n_messages for r in down), reverse=True)
    assert [r.session_id for r in up] == [r.session_id for r in reversed(down)]


def test_pages_cover_the_list_once(board: Blackboard) -> None:
    pages = [review.sessions(board, 1, review.Query(sort="tags", offset=o, limit=3)) for o in (0, 3, 6)]
    ids = [r.session_id for p in pages for r in p.rows]
    assert ids == [r.session_id for r in all_rows(board, sort="tags")]
    assert {p.total for p in pages} == {len(EVERY_CLASS)}


def test_bad_queries_are_errors(board: Blackboard) -> None:
    with pytest.raises(BlackboardError, match="unknown filter"):
        review.sessions(board, 1, review.Query(kind="two-ways"))
    with pytest.raises(BlackboardError, match="unknown sort"):
        review.sessions(board, 1, review.Query(sort="colour"))
    with pytest.raises(BlackboardError, match="no run 9"):
        review.sessions(board, 9)


def test_runs_list_counts_match_the_protocol(board: Blackboard) -> None:
    (run,) = review.runs(board)
    flags = [session_flags(expected_tags(tags)) for _, tags in EVERY_CLASS]
    assert run.counts.sessions == run.planned == run.started == len(EVERY_CLASS)
    for name in CLASSES:
        assert getattr(run.counts, name) == sum(getattr(f, name) for f in flags)


def test_a_copy_of_the_file_replays_a_session_with_its_instance(db_path: Path, tmp_path: Path, board) -> None:
    elsewhere = tmp_path / "other-machine" / "copy.db"
    elsewhere.parent.mkdir()
    shutil.copy(db_path, elsewhere)
    with Blackboard.open(elsewhere, create=False, readonly=True) as copy:
        session_id = all_rows(copy)[2].session_id
        replay = review.replay(copy, session_id)
    assert [m.tag for m in replay.messages] == [Tag(t) for t in EVERY_CLASS[2][1]]
    assert replay.instance.input == get_task("drug").demo_rows()[2].input  # the target, from the file alone
    assert replay.run.id == 1 and WORDS[2] in replay.messages[0].explanation
