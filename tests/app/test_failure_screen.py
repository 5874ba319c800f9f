"""The model-failure dialog: which choice has the focus, and keys pressed the moment it opens."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button, Input

from pxp_tui.app.session.failure import FailureScreen, Recovery


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.recoveries: list[Recovery | None] = []

    def show(self, retryable: bool) -> None:
        self.push_screen(FailureScreen("Connection error", "openai/gpt-4o-mini", retryable), self.recoveries.append)


@pytest.mark.parametrize(("retryable", "first"), [(True, "failure-retry"), (False, "failure-switch")])
async def test_the_dialog_opens_on_the_choice_that_helps(retryable: bool, first: str) -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.show(retryable)
        await pilot.pause()
        focused = app.screen.focused
        assert isinstance(focused, Button) and focused.id == first


async def test_w_pressed_as_the_dialog_opens_goes_to_the_model_field_and_switches_nothing() -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.show(True)
        await pilot.press("w")  # before the dialog has had a frame
        await pilot.pause()
        assert isinstance(app.screen, FailureScreen), "a w at once switched to the same model"
        field = app.screen.query_one("#failure-model", Input)
        assert field.has_focus
        await pilot.press("ctrl+a", "ctrl+k", *"offline", "enter")
        await pilot.pause()
    assert app.recoveries == [Recovery("switch", "offline")]
