"""Keys: every binding has an id and a description and shows in the footer or the help; the palette has them."""

from __future__ import annotations

import inspect
import pkgutil
from importlib import import_module

import pytest
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.dom import DOMNode
from textual.widgets import DataTable

import pxp_tui.app
from pxp_harness.app_helpers import expert_turn, live_app, wait_for
from pxp_harness.internals import palette_searching


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")


def app_classes() -> list[type[DOMNode]]:
    """Every screen, widget and app class defined in pxp_tui.app."""
    found = []
    for info in pkgutil.walk_packages(pxp_tui.app.__path__, "pxp_tui.app."):
        module = import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode) and cls.__module__ == module.__name__:
                found.append(cls)
    return found


def test_every_binding_has_an_id_and_a_description() -> None:
    bindings = [(cls.__name__, b) for cls in app_classes() for b in cls.__dict__.get("BINDINGS", [])]
    assert len(bindings) >= 20
    for owner, binding in bindings:
        assert isinstance(binding, Binding), owner
        assert binding.id and binding.description, (owner, binding.key)
    ids = [b.id for _, b in bindings]
    assert len(ids) == len(set(ids)), "binding ids are unique"


async def test_help_lists_every_key_of_the_session_screen_with_its_id(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        await pilot.press("question_mark")
        table = await wait_for(pilot, lambda: app.screen.query(DataTable) and app.screen.query_one(DataTable), "help")
        listed = {table.get_row_at(i)[3] for i in range(table.row_count)}
        expected = {
            b.id
            for node in (app, session, *session.walk_children())
            for b in type(node).__dict__.get("BINDINGS", [])
            if type(node).__module__.startswith("pxp_tui")
        }
        assert {"session.send", "session.cancel_call", "tag.ratify", "tag.reject", "picker.guards", "app.quit"} <= expected
        assert expected <= listed
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is session, "the help to close")


async def test_tags_are_chosen_with_1_to_4_and_the_footer_shows_send(db_path) -> None:
    async with live_app(db_path, k=1) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        choice = session.query_one("TagChoice")
        await wait_for(pilot, lambda: app.focused is choice, "the tag picker's focus at the expert's turn")
        for key, tag in zip("1234", ("RATIFY", "REFUTE", "REVISE", "REJECT"), strict=True):
            await pilot.press(key)
            assert choice.selected.value == tag
            await pilot.press("escape")  # REFUTE and REVISE move the focus to the prediction: back to the tags
        shown = {b.binding.id for b in session.active_bindings.values() if b.binding.show}
        assert {"session.send", "app.help", "app.quit", "session.metrics"} <= shown


async def test_the_command_palette_runs_screen_commands(db_path) -> None:
    async with live_app(db_path) as (app, pilot, _run_id):
        session = await expert_turn(pilot, app, j=2)
        titles = [c.title for c in app.get_system_commands(session)]
        assert {"Send", "Metrics", "Conversation", "New run", "Review past runs"} <= set(titles)
        assert "Cancel machine call" not in titles  # only while the machine thinks
        await pilot.press("ctrl+p")
        await pilot.press(*"Metrics")

        def found() -> bool:  # the search done, its best hit highlighted
            palette = app.screen
            if not isinstance(palette, CommandPalette) or palette_searching(app, palette):
                return False
            hits = palette.query_one(CommandList)
            return hits.highlighted is not None and "Metrics" in str(hits.get_option_at_index(hits.highlighted).prompt)

        await wait_for(pilot, found, "Metrics found in the command palette")
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.maximized is session.query_one("#metrics"), "the metrics view")
