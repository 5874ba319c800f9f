"""A finished session's outcome stays on screen until the expert moves on; a run ends on its summary."""

from __future__ import annotations

import pytest

from pxp_harness.app_helpers import (
    expert_turn,
    footer_current,
    footer_keys,
    live_app,
    messages,
    outcome_shown,
    rows,
    run_done,
    session_screen,
    type_answer,
    wait_for,
)
from pxp_harness.internals import notifications
from pxp_tui.app.session.messages import HumanTurn
from pxp_tui.app.session.states import SessionState
from pxp_tui.protocol import Sender, Tag, session_flags

PARACETAMOL_VIA_CHLORIDE = "CC(=O)Cl.Nc1ccc(O)cc1"
CHLORIDE_REASON = "Acylation of 4-aminophenol with acetyl chloride; the amine is more nucleophilic than the phenol."


@pytest.fixture(autouse=True)
def _no_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def banner_text(screen) -> str:
    return "\n".join(text(screen, f"#outcome-{part}") for part in ("head", "text"))


def flag_marks(screen) -> dict[str, str]:
    """The banner's intelligibility lines: class -> the marks after it (``✓ ·``, ``✓ (both)``...)."""
    lines = text(screen, "#outcome-text").splitlines()[1:5]  # the flags come first
    return {line[:16].strip(): " ".join(line[16:].split()) for line in lines}


async def summary_shown(pilot, app):
    """Wait for the run's summary screen, its numbers read; returns it."""

    def shown():
        screen = app.screen
        if type(screen).__name__ != "SummaryScreen" or not screen.query("#summary-sessions"):
            return None  # not pushed yet, or pushed and not yet composed
        return "done" in text(screen, "#summary-sessions") and screen

    return await wait_for(pilot, shown, "the run's summary")


def session_view(db_path, run_id: int, order: int) -> dict:
    return rows(db_path, "SELECT * FROM session_intelligibility WHERE run_id = ? AND ord = ?", (run_id, order))[0]


async def test_a_ratified_session_stays_on_screen_until_enter_and_the_next_starts_clean(db_path) -> None:
    async with live_app(db_path) as (app, pilot, run_id):
        screen = await expert_turn(pilot, app, j=2)
        first_prediction = screen.exchange.messages[0].prediction
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)

        shown = banner_text(screen)
        assert "Session 1 of 2: Ratified by both at message 3" in shown
        assert "Last message: 3 machine RATIFY" in shown
        assert first_prediction in shown  # the closing message's prediction, as sent
        assert "enter: the next instance" in shown
        assert flag_marks(screen) == {"one-way": "✓ ✓", "two-way": "✓ (both)", "strong": "✓ ✓", "ultra-strong": "· ·"}
        assert screen.query_one("#outcome").display and not screen.query_one("#picker").display
        # the engine goes on (the next instance's first message is asked meanwhile), the screen does not
        # ...and its reports reach the screen, up to the expert's next turn, which it keeps for after the outcome
        await wait_for(pilot, lambda: any(isinstance(e, HumanTurn) for e in screen.held), "the next turn, held")
        assert len(messages(db_path, run_id)) == 4  # the next session's INIT
        assert screen.exchange.order == 0 and screen.state is SessionState.OUTCOME
        shown = screen.query_one("Conversation").entries
        assert [e.has_class("entry") for e in shown] == [True, True, True, False]  # three messages, the end's note
        assert "INIT_m RATIFY_h RATIFY_m" in text(screen, "#metrics-tags")

        await pilot.press("enter")
        screen = await expert_turn(pilot, app, j=2)
        assert screen.exchange.order == 1
        assert not screen.query_one("#outcome").display and screen.query_one("#picker").display
        assert [e.has_class("entry") for e in screen.query_one("Conversation").entries] == [True]  # the new INIT only
        assert text(screen, "#metrics-tags") == "This session: INIT_m"
        second = screen.exchange.messages[0]
        assert second.prediction != first_prediction
        assert screen.query_one("#answer-prediction").value == second.prediction  # not the last answer
        assert screen.query_one("TagChoice").selected is None  # RATIFY is not still ticked


async def test_at_the_outcome_n_opens_the_note_and_enter_moves_on(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
        screen = await outcome_shown(pilot, app)
        assert screen.focused is None  # nothing of the hidden answer takes keys: enter reaches the screen
        await pilot.press("n")  # the session's note, not the next instance
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the outcome again")
        assert screen.state is SessionState.OUTCOME and screen.exchange.order == 0
        await wait_for(pilot, lambda: footer_current(screen), "the outcome's keys in the footer")
        shown, _ = footer_keys(screen)
        assert ("next_instance", True) in shown and not any(action == "send" for action, _ in shown)  # nothing to send
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.exchange.order == 1, "the second session")


async def test_a_rejected_session_says_who_rejected_and_its_flags_match_the_blackboard(db_path) -> None:
    async with live_app(db_path, k=3) as (app, pilot, run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=4)
        app.screen.query_one("TagChoice").focus()
        await pilot.press("4", "ctrl+s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the REJECT confirmation")
        await pilot.press("y")
        screen = await outcome_shown(pilot, app)
        shown = banner_text(screen)
        assert "Rejected by alice at message 4" in shown
        assert "Last message: 4 alice REJECT" in shown
        assert PARACETAMOL_VIA_CHLORIDE in shown
        view = session_view(db_path, run_id, 0)
        assert view["stop_reason"] == "rejected"
        tags = [(Sender(s), Tag(t)) for o, _, s, t, _ in messages(db_path, run_id) if o == 0]
        flags = session_flags(tags)
        marks = flag_marks(screen)
        assert marks["one-way"] == " ".join("✓" if v else "·" for v in (flags.one_way_human, flags.one_way_machine))
        assert marks["strong"] == " ".join("✓" if v else "·" for v in (flags.strong_human, flags.strong_machine))
        assert bool(view["one_way_human"]) is flags.one_way_human is False  # a REJECT is never one-way


async def test_the_bound_is_named_as_the_outcome(db_path) -> None:
    async with live_app(db_path, n=2, limit=1) as (app, pilot, _run_id):
        await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await type_answer(pilot, app, PARACETAMOL_VIA_CHLORIDE, CHLORIDE_REASON)
        await pilot.press("ctrl+s")
        screen = await outcome_shown(pilot, app)
        shown = banner_text(screen)
        assert "Message bound reached (2 messages) without agreement" in shown
        assert "enter: the run's summary" in shown  # the last session of the run


@pytest.mark.slow
async def test_the_run_ends_on_its_summary_with_the_papers_table(db_path) -> None:
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.blackboard.metrics import counts_of, run_rows
    from pxp_tui.report import table

    async with live_app(db_path) as (app, pilot, run_id):
        for _ in range(2):
            await expert_turn(pilot, app, j=2)
            await pilot.press("1", "ctrl+s")
        session = await run_done(pilot, app)
        summary = await summary_shown(pilot, app)
        with Blackboard.open(db_path, readonly=True) as board:
            expected = table.text([f"run {run_id} DRUG alice"], [counts_of(r) for r in run_rows(board, [run_id])])
        assert text(summary, "#summary-table") == expected  # what `pxp metrics` prints
        assert f"The run is finished: run {run_id}" in text(summary, "#summary-title")
        assert "Expert    alice" in text(summary, "#summary-sessions")  # whose run it is, where it is read
        assert "2 of 2 done: 2 ratified" in text(summary, "#summary-sessions")
        assert " s in sessions" in text(summary, "#summary-sessions")
        steps = text(summary, "#summary-next")
        assert (
            f"pxp report --runs {run_id} --db {db_path}" in steps
            and f"pxp export --run {run_id} --format csv --db {db_path}" in steps
        )

        await pilot.press("e")  # the run exported for a spreadsheet, and where it went said
        said = await wait_for(pilot, lambda: [n for n in notifications(app) if "exported" in n], "the export's notification")
        folder = db_path.resolve().parent / "export" / f"run-{run_id}"
        assert str(folder) in said[0] and "(6 messages)" in said[0]
        from openpyxl import load_workbook

        sheet = load_workbook(folder / "messages.xlsx", read_only=True).active
        table = list(sheet.iter_rows(values_only=True))
        assert [(r[0], r[5], r[8]) for r in table[1:]] == [(run_id, j, tag) for _ in range(2) for j, tag in
                                                           ((1, "INIT"), (2, "RATIFY"), (3, "RATIFY"))]  # fmt: skip

        await pilot.press("ctrl+o")  # review this run
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SessionsScreen" and app.screen.run_id == run_id)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary, "the summary again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is session, "the last session")
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the summary from s")


async def test_a_watched_proxy_run_does_not_wait_and_ends_on_its_summary(db_path) -> None:
    async with live_app(db_path, human="proxy", limit=3) as (app, pilot, _run_id):
        summary = await summary_shown(pilot, app)
        assert "3 of 3 done" in text(summary, "#summary-sessions")
        await wait_for(pilot, lambda: not session_screen(app).engine.is_running, "the engine's end")
        assert session_screen(app).state is SessionState.DONE
