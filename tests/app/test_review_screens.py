"""Pilot tests of the review screens on a blackboard with sessions of every intelligibility class."""

from __future__ import annotations

import io
import shutil
import threading
from pathlib import Path

import pytest
from PIL import Image
from textual.app import App
from textual.widgets import DataTable, Input, Select, Static

from pxp_harness.app_helpers import settled, wait_for
from pxp_harness.boards import EVERY_CLASS, WORDS, every_class_board, scripted_run
from pxp_harness.cli_helpers import pxp
from pxp_harness.waiting import PATIENCE, async_poll
from pxp_tui.app.review import ReviewApp, ReviewScreen
from pxp_tui.app.review.glyphs import TAGS
from pxp_tui.app.review.message_card import MessageCard
from pxp_tui.app.review.replay_screen import ReplayScreen
from pxp_tui.app.review.sessions_screen import SessionsScreen
from pxp_tui.blackboard import Blackboard, review
from pxp_tui.config import RunConfig
from pxp_tui.protocol import Sender, Tag, session_flags
from pxp_tui.tasks.base import DatasetRow

SIZE = (120, 36)


def flags_of(tags: list[str]):
    return session_flags([(Sender.MACHINE if j % 2 == 0 else Sender.HUMAN, Tag(t)) for j, t in enumerate(tags)])


def stop_of(tags: list[str]) -> str:
    if tags[-1] == "REJECT":
        return "rejected"
    return "ratified" if tags[-2:] == ["RATIFY", "RATIFY"] else "bound"


def table_rows(app: App, selector: str) -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


def status(app: App, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


@pytest.fixture
async def every(db_path: Path) -> Path:
    return await every_class_board(db_path)


async def open_sessions(pilot) -> None:
    await settled(pilot)
    await pilot.press("enter")
    await settled(pilot)
    assert isinstance(pilot.app.screen, SessionsScreen)


async def test_runs_list_shows_each_run_with_its_counts(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await settled(pilot)
        (row,) = table_rows(pilot.app, "#runs-table")
    flags = [flags_of(tags) for _, tags in EVERY_CLASS]

    def count(name: str) -> int:
        return sum(getattr(f, name) for f in flags)

    assert row[:4] == ["1", "DRUG", "proxy", f"{len(EVERY_CLASS)}/{len(EVERY_CLASS)}"]
    assert row[4:8] == [
        f"{count('one_way_human')} · {count('one_way_machine')}",
        str(count("two_way")),
        f"{count('strong_human')} · {count('strong_machine')}",
        f"{count('ultra_strong_human')} · {count('ultra_strong_machine')}",
    ]


async def test_sessions_show_tag_glyphs_flags_and_stop_reasons(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        rows = table_rows(pilot.app, "#sessions-table")
    assert len(rows) == len(EVERY_CLASS)
    for row, (_, tags) in zip(rows, EVERY_CLASS, strict=True):
        assert row[2] == " ".join(TAGS[Tag(t)][0] for t in tags)
        assert row[4] == ("✓" if flags_of(tags).two_way else "·")
        assert row[7] == str(len(tags))
    assert [r[8] for r in rows][:4] == ["ratified", "ratified", "ratified", "rejected"]


@pytest.mark.parametrize("kind", ["two_way", "ultra_strong_machine", "one_way_human", "rejected", "bound"])
async def test_filter_by_class_keeps_only_that_class(every: Path, kind: str) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        pilot.app.screen.query_one("#filter-class", Select).value = kind
        await settled(pilot)
        shown = [int(r[0]) - 1 for r in table_rows(pilot.app, "#sessions-table")]
        line = status(pilot.app, "#sessions-status")
    if kind in ("rejected", "bound"):
        wanted = [i for i, (_, t) in enumerate(EVERY_CLASS) if stop_of(t) == kind]
    else:
        wanted = [i for i, (_, t) in enumerate(EVERY_CLASS) if getattr(flags_of(t), kind)]
    assert shown == wanted and f"of {len(wanted)}" in line


async def test_filter_by_text_typed_in_the_search_box(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        await pilot.press("slash")
        assert isinstance(pilot.app.focused, Input)
        await pilot.press(*WORDS[4].upper(), "enter")
        await settled(pilot)
        assert [r[0] for r in table_rows(pilot.app, "#sessions-table")] == ["5"]
        await pilot.press("escape")  # clears the filter
        await settled(pilot)
        assert len(table_rows(pilot.app, "#sessions-table")) == len(EVERY_CLASS)


async def test_sort_by_any_column_and_reverse(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        screen = pilot.app.screen
        while screen.query_state.sort != "messages":
            await pilot.press("o")
        await settled(pilot)
        up = [int(r[7]) for r in table_rows(pilot.app, "#sessions-table")]
        await pilot.press("O")
        await settled(pilot)
        down = [int(r[7]) for r in table_rows(pilot.app, "#sessions-table")]
        assert "sorted by msgs ↓" in status(pilot.app, "#sessions-status")
    assert up == sorted(up) and down == sorted(up, reverse=True) and up != down


async def test_replay_reveals_messages_one_by_one_with_the_instance(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        await pilot.press("down", "enter")
        await settled(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReplayScreen)
        assert len(screen.query(MessageCard)) == 1
        await pilot.press("right", "right")
        await pilot.pause()
        cards = list(screen.query(MessageCard))
        assert [c.message.tag for c in cards] == [Tag(t) for t in EVERY_CLASS[1][1][:3]]
        await pilot.press("left")
        await pilot.pause()
        assert len(screen.query(MessageCard)) == 2
        await pilot.press("end")
        await pilot.pause()
        assert len(screen.query(MessageCard)) == len(EVERY_CLASS[1][1])
        line = status(pilot.app, "#replay-status")
        assert "ratified" in line and "ultra strong machine" in line
        assert "Aspirin" in str(screen.query_one("#instance-meta", Static).render())
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, SessionsScreen)


async def test_pages_of_a_long_run(db_path: Path) -> None:
    with Blackboard.open(db_path) as board:
        board.add_dataset("many", "drug", [DatasetRow(f"m{i}", "train", "CCO", "CC.O", "e") for i in range(60)])
        await scripted_run(board, [["INIT", "RATIFY", "RATIFY"]] * 60, dataset="many")
    async with ReviewApp(db_path).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        assert len(table_rows(pilot.app, "#sessions-table")) == 50
        await pilot.press("right_square_bracket")
        await settled(pilot)
        assert [r[0] for r in table_rows(pilot.app, "#sessions-table")] == [str(i) for i in range(51, 61)]
        assert "sessions 51–60 of 60" in status(pilot.app, "#sessions-status")


async def test_a_copy_on_another_machine_shows_the_stored_xray(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.new("L", (64, 64), 90).save(buffer, format="PNG")
    original = tmp_path / "here.db"
    with Blackboard.open(original) as board:
        board.add_dataset("xrays", "rad", [DatasetRow("case1", "train", "", "Pneumonia", "opacity", image=buffer.getvalue())])
        run_id = board.create_run(
            RunConfig(task="rad", dataset="xrays", model="script", n=4),
            board.instance_ids("xrays"),
        )
        from pxp_harness.scripted import ScriptedAgent
        from pxp_tui.engine import RunSpec, interact

        await interact(
            RunSpec(run_id, n=4),
            board.instances(board.instance_ids("xrays")),
            ScriptedAgent([["INIT", "RATIFY"]]),
            ScriptedAgent([["RATIFY"]]),
            board,
        )
    copy = tmp_path / "elsewhere" / "copy.db"
    copy.parent.mkdir()
    shutil.copy(original, copy)
    original.unlink()  # nothing but the copy: the image must come from the file
    async with ReviewApp(copy).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        await pilot.press("enter")
        # the X-ray drawn (the picture is drawn once its frame is laid out, not by a worker settle waits for)
        await wait_for(pilot, lambda: pilot.app.screen.query("#instance-picture .picture-image"), "the stored X-ray drawn")


async def test_runs_written_while_the_review_is_open_appear_on_refresh(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert len(table_rows(pilot.app, "#runs-table")) == 1
        with Blackboard.open(every, create=False) as writer:  # a live run in the same file
            await scripted_run(writer, [["INIT", "RATIFY", "RATIFY"]], human="alice")
        await pilot.press("f5")
        await settled(pilot)
        rows = table_rows(pilot.app, "#runs-table")
    assert [r[2] for r in rows] == ["proxy", "alice"]


async def test_the_review_screen_can_be_pushed_from_another_app(every: Path) -> None:
    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(every))

    async with Host().run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert isinstance(pilot.app.screen, ReviewScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ReviewScreen) and pilot.app.is_running


async def test_every_binding_has_an_id_and_a_description(every: Path) -> None:
    from pxp_tui.app.review.filter_bar import FilterBar

    for owner in (ReviewApp, ReviewScreen, SessionsScreen, ReplayScreen, FilterBar):
        for binding in owner.BINDINGS:
            assert binding.id and binding.description, (owner.__name__, binding.key)


def test_review_of_a_missing_file_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = pxp(capsys, "review", "--db", tmp_path / "none.db")
    assert code == 2 and "no blackboard" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "none.db").exists()


async def test_escape_from_the_runs_closes_the_review_app(every: Path) -> None:
    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert not pilot.app.is_running


@pytest.mark.parametrize("leaving", [SessionsScreen, ReplayScreen], ids=["sessions", "replay"])
async def test_leaving_a_screen_while_it_still_reads_goes_back_and_the_review_goes_on(
    every: Path, monkeypatch: pytest.MonkeyPatch, leaving: type
) -> None:
    """Escape while the screen's rows are still being read (a big blackboard, a loaded machine), the read ending
    as the screen is taken down: the review goes back, and the read's end does not fill the screen's widgets,
    gone by then (the review stopped with a traceback, and with a terminal that had stopped reading, never ended)."""
    group = "sessions" if leaving is SessionsScreen else "replay"  # its read, and its worker's group
    read, reading, go_on = getattr(review, group), threading.Event(), threading.Event()

    def slow(*args, **kwargs):
        reading.set()
        assert go_on.wait(PATIENCE), "the test never let the read end"
        return read(*args, **kwargs)

    async def taken_down(self) -> None:  # its widgets are gone; Textual cancels its workers after this
        go_on.set()
        await async_poll(lambda: not [w for w in self.app.workers if w.group == group], "the read's end")

    app = ReviewApp(every)
    try:
        async with app.run_test(size=SIZE) as pilot:
            if leaving is ReplayScreen:
                await open_sessions(pilot)
            else:
                await settled(pilot)  # the runs are listed: enter opens the run's sessions
            back_to = type(app.screen)
            monkeypatch.setattr(review, group, slow)
            monkeypatch.setattr(leaving, "on_unmount", taken_down, raising=False)
            await pilot.press("enter")
            await wait_for(pilot, reading.is_set, f"the {group} screen's read")
            await pilot.press("escape")
            await wait_for(pilot, lambda: go_on.is_set() and not [w for w in app.workers if w.group == group], "the read's end")
            await pilot.pause()
            assert app.is_running and type(app.screen) is back_to
    finally:
        go_on.set()


async def test_a_class_chosen_from_the_filter_returns_to_the_sessions_and_enter_replays(every: Path) -> None:
    async with ReviewApp(every).run_test(size=(80, 24)) as pilot:
        await open_sessions(pilot)
        await pilot.press("ctrl+f")  # the list opens at once
        select = pilot.app.screen.query_one("#filter-class", Select)
        await wait_for(pilot, lambda: select.expanded, "the class list open")
        overlay = select.query_one("SelectOverlay")
        labels = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
        assert labels[-2:] == ["flagged for later", "with a note"]
        region = overlay.region
        assert region.height >= overlay.option_count + 2 and region.bottom <= 24  # every class in view at 80x24
        while overlay.highlighted is None or str(overlay.get_option_at_index(overlay.highlighted).prompt) != "2-way":
            await pilot.press("down")
        await pilot.press("enter")
        await settled(pilot)
        assert select.value == "two_way" and not select.expanded
        assert pilot.app.focused is pilot.app.screen.query_one("#sessions-table")
        await pilot.press("enter")  # a session replayed, not the list opened again
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), "the replay")


async def test_the_replay_shows_the_reference_and_whether_each_message_matched_it(every: Path) -> None:
    from pxp_tui.tasks import get_task

    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        await pilot.press("enter")
        await settled(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReplayScreen) and screen.replay is not None
        await pilot.press("end")
        await pilot.pause()
        instance = screen.replay.instance
        shown = str(screen.query_one("#replay-reference", Static).render())
        assert "Reference answer" in shown and instance.reference_prediction in shown
        task = get_task("drug")
        for card in screen.query(MessageCard):
            expected = task.match(card.message.prediction, instance.reference_prediction)
            assert card.matched is expected
            line = str(card.query_one(".card-prediction", Static).render())
            assert ("✓ the reference" if expected else "✗ not the reference") in line


async def test_e_exports_the_run_for_a_spreadsheet_and_says_where(every: Path) -> None:
    from openpyxl import load_workbook

    from pxp_harness.internals import notifications

    async with ReviewApp(every).run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        await pilot.press("e")
        folder = every.resolve().parent / "export" / "run-1"
        said = await wait_for(pilot, lambda: [n for n in notifications(pilot.app) if "exported" in n], "the notification")
        assert str(folder) in said[0] or "export/run-1" in said[0]
    sheet = load_workbook(folder / "messages.xlsx", read_only=True).active
    table = list(sheet.iter_rows(values_only=True))
    assert table[0][:5] == ("run_id", "session", "session_id", "instance_key", "expert")
    with Blackboard.open(every, create=False, readonly=True) as board:
        stored = board.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert len(table) - 1 == stored and {r[0] for r in table[1:]} == {1}
    assert sorted(p.name for p in folder.iterdir()) == ["instances.xlsx", "messages.xlsx", "runs.xlsx", "sessions.xlsx"]


@pytest.mark.parametrize(("size", "wanted"), [((80, 24), "status"), ((120, 40), "date")])
async def test_the_runs_list_drops_the_least_useful_columns_to_fit(every: Path, size, wanted: str) -> None:
    async with ReviewApp(every).run_test(size=size) as pilot:
        await settled(pilot)
        table = pilot.app.screen.query_one("#runs-table", DataTable)
        keys = [str(c.key.value) for c in table.ordered_columns]
        assert wanted in keys and {"progress", "two_way", "status"} <= set(keys)
        assert sum(c.get_render_width(table) for c in table.ordered_columns) <= size[0]  # nothing cut at the right
    assert (size[0] == 80) == ("date" not in keys)
