"""One key map: no key has two meanings at once on any screen, and a letter typed where text is typed is text.

The map is checked twice: over every binding the app declares (every screen, widget and dialog,
whether or not a test reaches it), and on the screens as a person walks through them: the start
screen, the session at the expert's turn, the note, the help, the picture, the outcome, the summary,
the review's lists and replay, a yes-or-no question. On each, every typing widget is given every
single-key shortcut the screen binds: none may run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, TextArea

from pxp_harness.app_helpers import expert_turn, live_app, outcome_shown, run_done, wait_for
from pxp_tui.app.session.widgets.answer_fields import LabelList
from pxp_tui.app.shell.keymap import CONTEXTUAL, conflicts, keys, meaning, takes_typing
from pxp_tui.app.shell.pxp_app import PXPApp

from .test_app_keys import app_classes


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def declared() -> list[tuple[type, Binding]]:
    return [(cls, b) for cls in app_classes() for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


def test_no_key_has_two_meanings_on_any_screen() -> None:
    found = declared()
    assert len(found) >= 60
    assert conflicts(found) == {}


def test_the_check_finds_a_key_with_two_meanings() -> None:
    class One(Screen):
        BINDINGS = [Binding("n", "note", "Note", id="one.note")]

    class Other(Screen):
        BINDINGS = [Binding("n,enter", "next", "Next", id="other.next")]

    class Question(ModalScreen):
        BINDINGS = [Binding("n", "no", "No", id="question.no"), Binding("q", "close", "Close", id="question.close")]

    class Quits(PXPApp):
        BINDINGS = [Binding("q", "quit", "Quit", id="quits.quit")]

    found = conflicts([(One, b) for b in One.BINDINGS] + [(Other, b) for b in Other.BINDINGS])
    assert set(found) == {"n"} and set(found["n"]) == {"note", "next"}  # enter: contextual
    dialog = [(One, One.BINDINGS[0]), *((Question, b) for b in Question.BINDINGS), (Quits, Quits.BINDINGS[0])]
    assert set(conflicts(dialog)) == {"q"}  # a dialog's n may mean No; its q may not mean other than quit


def test_the_old_double_meanings_are_gone() -> None:
    meanings: dict[str, set[str]] = {}
    for _, binding in declared():
        for key in keys(binding):
            meanings.setdefault(key, set()).add(meaning(binding))
    assert meanings["n"] == {"note", "no"}  # not "next": enter moves on
    assert meanings["f"] == {"picture"}  # not the review's filter (ctrl+f)
    assert meanings["r"] == {"retry"}  # not review (ctrl+o) or refresh (f5)
    assert meanings["e"] == {"export"}
    assert not set(CONTEXTUAL) & {k for k in meanings if len(k) == 1 and k.isalpha()}  # no letter is contextual


# -- walking the screens --------------------------------------------------------------------------------
def single_keys(screen: Screen) -> set[str]:
    """The one-character keys of the shortcuts active on ``screen`` (its own, its widgets', the app's)."""
    found = set()
    for key, active in screen.active_bindings.items():
        if active.binding.id and (len(key) == 1 or key in ("question_mark", "slash", "left_square_bracket")):
            found.add(key)
    return found


#: every one-letter key any screen binds
EVERY_LETTER = {key for _, binding in declared() for key in keys(binding) if len(key) == 1 and key.isalpha()}


def typing_widgets(screen: Screen) -> Iterator[Any]:
    for node in screen.walk_children():
        if takes_typing(node) and node.focusable and node.display and not node.disabled:
            yield node


class Actions:
    """Every action the app runs from a key (Textual's bindings call ``run_action``)."""

    def __init__(self, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.run: list[str] = []
        real = app.run_action

        async def recording(action: Any, *args: Any, **kwargs: Any) -> Any:
            self.run.append(str(action))
            return await real(action, *args, **kwargs)

        monkeypatch.setattr(app, "run_action", recording)


async def no_shortcut_while_typing(pilot: Any, app: Any, actions: Actions, where: str) -> int:
    """Focus each typing widget of the screen in turn and press every single-key shortcut: none runs.

    The fields hold what they held before afterwards.
    """
    screen = app.screen
    letters = sorted(single_keys(screen) | EVERY_LETTER)
    inputs = {field: field.value for field in screen.query(Input)}
    areas = {field: field.text for field in screen.query(TextArea)}
    tried = 0
    for widget in list(typing_widgets(screen)):
        widget.focus()
        await wait_for(pilot, lambda w=widget: app.focused is w, f"the focus on {widget!r} ({where})")
        before = list(actions.run)
        await pilot.press(*letters)
        assert app.screen is screen, f"{where}: a key typed in {widget!r} left the screen"
        assert actions.run == before, f"{where}: typing in {widget!r} ran {actions.run[len(before) :]}"
        tried += 1
    for field, value in inputs.items():
        field.value = value
    for area, text in areas.items():
        area.text = text
    return tried


def active_conflicts(screen: Screen) -> dict[str, Any]:
    found = [(type(a.node), a.binding) for a in screen.active_bindings.values() if a.binding.id]
    return conflicts(found)


@pytest.mark.slow
async def test_a_walk_through_every_screen_finds_one_meaning_per_key_and_no_shortcut_in_typing(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    visited: dict[str, int] = {}

    async def check(pilot: Any, app: Any, actions: Actions, where: str) -> None:
        assert active_conflicts(app.screen) == {}, where
        visited[where] = await no_shortcut_while_typing(pilot, app, actions, where)
        for node in app.screen.query("TagChoice, DataTable"):  # the focus out of the typing widgets again
            node.focus()
            break

    start = PXPApp(db_path)
    async with start.run_test(size=(160, 48)) as pilot:
        actions = Actions(start, monkeypatch)
        await wait_for(pilot, lambda: type(start.screen).__name__ == "StartScreen" and start.screen.query(Input), "start")
        await check(pilot, start, actions, "start")

    async with live_app(db_path, task="rad") as (app, pilot, _run_id):
        actions = Actions(app, monkeypatch)
        session = await expert_turn(pilot, app, j=2)
        await check(pilot, app, actions, "session: your turn")
        await pilot.press("n")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NoteScreen", "the note window")
        await check(pilot, app, actions, "note")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is session, "the session again")
        for opens, name, closes in (
            ("x", "ConfirmScreen", "n"),
            ("question_mark", "HelpScreen", "escape"),
            ("f", "PictureScreen", "f"),
        ):
            await pilot.press(opens)  # the skip question, the keys, the picture full-screen
            await wait_for(pilot, lambda name=name: type(app.screen).__name__ == name, name)
            assert active_conflicts(app.screen) == {}, name
            visited[name] = 0
            await pilot.press(closes)
            await wait_for(pilot, lambda: app.screen is session, f"the session again after {name}")
        await pilot.press("1", "ctrl+s")
        await outcome_shown(pilot, app)
        assert active_conflicts(app.screen) == {}
        visited["outcome"] = 0
        await pilot.press("enter")
        session = await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
        await run_done(pilot, app)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the run's summary")
        assert active_conflicts(app.screen) == {}
        visited["summary"] = 0
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SessionsScreen" and app.screen.page, "the sessions")
        await check(pilot, app, actions, "review: sessions")
        sessions = app.screen
        table = sessions.query_one("#sessions-table")
        table.focus()
        # the letters typed into the filter asked for the sessions they match (none), after a pause in typing; the
        # filter put back as it was asks again: enter replays the session under the cursor of the page then shown
        await wait_for(
            pilot,
            lambda: app.focused is table and not sessions.query_state.text and sessions.page.rows and not sessions.board.pending,
            "the sessions listed again, unfiltered, the table focused",
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReplayScreen" and app.screen.replay, "the replay")
        assert active_conflicts(app.screen) == {}
        visited["replay"] = 0
    assert visited["session: your turn"] >= 3  # the prediction, RAD's condition list, the explanation
    assert visited["note"] >= 1 and visited["review: sessions"] >= 1 and visited["start"] >= 1


async def test_typing_pneu_in_rad_s_condition_list_filters_it_and_opens_no_note(db_path: Path) -> None:
    async with live_app(db_path, task="rad") as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        labels = session.query_one(LabelList)
        prediction = session.query_one("#answer-prediction", Input)
        prediction.value = ""
        session.query_one("#answer-explanation").focus()
        await pilot.press("shift+tab")  # from the explanation: the condition list
        await wait_for(pilot, lambda: app.focused is labels, "the condition list's focus")
        await pilot.press(*"pneu")
        assert app.screen is session  # no Note window
        assert prediction.value == "pneu" and app.focused is prediction
        assert [labels.get_option_at_index(i).id for i in range(labels.option_count)] == ["Pneumonia", "Pneumothorax"]


async def test_the_palette_lists_each_command_once(db_path: Path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        commands = list(app.get_system_commands(session))
        titles = [c.title for c in commands]
        assert len(titles) == len(set(titles)), titles
        assert "Keys" not in titles or "Show every key" not in titles
