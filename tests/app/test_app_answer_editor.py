"""The expert's answer editor: a paragraph-sized explanation, the usual editing keys, escape back to the
tags, RAD's prediction picked from its labels, the focus after REFUTE/REVISE, keys before one's turn."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from pxp_harness.app_helpers import expert_turn, live_app, messages, rows, wait_for
from pxp_harness.internals import notifications
from pxp_tui.app.session.early_keys import WAIT
from pxp_tui.app.session.states import SessionState
from pxp_tui.app.session.widgets.answer_fields import ExplanationArea, LabelList
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.tasks.rad.labels import LABELS


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


async def test_escape_in_a_field_returns_to_the_tags_and_a_4_then_chooses_reject(db_path) -> None:
    async with live_app(db_path, k=1) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        choice = session.query_one(TagChoice)
        for field in ("#answer-prediction", "#answer-explanation"):
            widget = session.query_one(field)
            widget.focus()
            await pilot.pause()
            before = widget.value if isinstance(widget, Input) else widget.text
            await pilot.press("escape")
            assert app.focused is choice, field
            await pilot.press("4")
            assert choice.selected is not None and choice.selected.value == "REJECT"
            after = widget.value if isinstance(widget, Input) else widget.text
            assert after == before, "the 4 did not land in the field"
            choice.select(None)
        assert session.state is SessionState.HUMAN  # escape did not cancel anything


async def test_the_explanation_takes_half_the_answer_pane_at_160x48_and_grows_at_80x24(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        picker, area = session.query_one("#picker"), session.query_one(ExplanationArea)
        assert area.size.height >= picker.size.height // 2 >= 12
    async with live_app(db_path, size=(80, 24)) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        assert session.query_one(ExplanationArea).size.height >= 6


async def test_the_prefilled_explanation_is_selected_on_focus_and_ctrl_a_selects_all(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        area = session.query_one(ExplanationArea)
        await pilot.press("tab")  # from the tags to the prediction, then the explanation
        await pilot.press("tab")
        assert app.focused is area
        assert area.selected_text == area.text != ""
        await pilot.press(*"Mine.")
        assert area.text == "Mine."  # typing replaced the machine's explanation
        await pilot.press("left", "ctrl+a")
        assert area.selected_text == "Mine."
        await pilot.press("ctrl+z")
        assert area.text != "Mine."  # undone


async def test_refute_and_revise_move_the_focus_to_the_prediction(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        choice, prediction = session.query_one(TagChoice), session.query_one("#answer-prediction")
        await pilot.press("1")
        assert app.focused is choice  # RATIFY: send at once
        for key in ("2", "3"):
            choice.focus()
            await pilot.press(key)
            assert app.focused is prediction, key


@pytest.mark.slow
async def test_rad_prediction_is_picked_from_the_five_labels_with_type_to_filter(db_path) -> None:
    async with live_app(db_path, task="rad") as (app, pilot, run_id):
        session = await expert_turn(pilot, app, j=2)
        labels = session.query_one(LabelList)
        shown = [labels.get_option_at_index(i).id for i in range(labels.option_count)]
        assert shown == list(LABELS)
        await wait_for(pilot, lambda: labels.size.height, "the labels laid out")  # at the turn's first frame
        assert labels.size.height == len(LABELS)  # all five visible at 160x48
        await pilot.press("3")  # REVISE: the focus goes to the prediction
        assert app.focused is session.query_one("#answer-prediction")
        await pilot.press(*"pneu")
        assert [labels.get_option_at_index(i).id for i in range(labels.option_count)] == ["Pneumonia", "Pneumothorax"]
        await pilot.press("down", "enter")  # the second match, picked
        assert session.query_one("#answer-prediction", Input).value == "Pneumothorax"
        assert app.focused is session.query_one(ExplanationArea)
        await pilot.press(*"Air in the pleural space.", "ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's message")
    sent = rows(db_path, "SELECT tag, prediction, explanation FROM messages WHERE j = 2")[0]
    assert sent == {"tag": "REVISE", "prediction": "Pneumothorax", "explanation": "Air in the pleural space."}


async def test_rad_a_filter_that_leaves_one_label_sends_that_label(db_path) -> None:
    async with live_app(db_path, task="rad") as (app, pilot, run_id):
        session = await expert_turn(pilot, app, j=2)
        await pilot.press("2")
        await pilot.press(*"cardio")
        assert session.query_one(LabelList).only == "Cardiomegaly"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(messages(db_path, run_id)) >= 2, "the expert's message")
    assert messages(db_path, run_id)[1][3:] == ("REFUTE", "Cardiomegaly")


async def test_keys_pressed_before_your_turn_say_to_wait_and_are_not_kept(db_path, machine_gate) -> None:
    machine_gate.close()  # the machine thinks until the keys are handled
    async with live_app(db_path) as (app, pilot, run_id):
        from pxp_harness.app_helpers import session_screen

        await wait_for(
            pilot,
            lambda: (s := session_screen(app)) is not None and s.state is SessionState.MACHINE and machine_gate.held,
            "the machine's first call",
        )
        await pilot.press("1", "ctrl+s")
        await wait_for(pilot, lambda: WAIT in notifications(app), "the note to wait")
        machine_gate.open()
        session = await expert_turn(pilot, app, j=2)
        assert session.query_one(TagChoice).selected is None  # the early 1 was not kept
        assert len(messages(db_path, run_id)) == 1


async def test_rad_the_next_turn_lists_every_label_with_the_expert_s_prediction_highlighted(db_path) -> None:
    async with live_app(db_path, task="rad") as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        labels = session.query_one(LabelList)
        await pilot.press("2", *"cardio", "ctrl+s")  # REFUTE, with the one label "cardio" leaves
        await expert_turn(pilot, app, j=4)
        for _ in range(2):  # the turn opened, then the same list asked for again (it is kept, not rebuilt)
            shown = [labels.get_option_at_index(i).id for i in range(labels.option_count)]
            assert shown == list(LABELS)
            assert labels.highlighted_label == "Cardiomegaly"
            labels.highlighted = 0
            labels.show_for("Cardiomegaly")
        labels.show_for("pneu")
        assert [labels.get_option_at_index(i).id for i in range(labels.option_count)] == ["Pneumonia", "Pneumothorax"]


async def test_the_next_turn_starts_from_the_text_sent_with_nothing_of_the_last_turn_to_undo(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        area = session.query_one(ExplanationArea)
        await pilot.press("2")  # REFUTE: the focus in the prediction
        area.focus()
        await pilot.pause()
        await pilot.press(*"Mine.", "ctrl+s")  # typed over the selected explanation, then sent
        await expert_turn(pilot, app, j=4)
        assert area.text == "Mine."  # REFUTE keeps the expert's own answer
        area.focus()
        await pilot.pause()
        assert area.selected_text == "Mine."  # selected at the turn's first focus, as a new text is
        await pilot.press("ctrl+z")
        assert area.text == "Mine."  # the last turn's typing is not undone
