"""Predictions and explanations are shown as sent, in every pane: no Markdown, no markup, every character kept.

Every SMILES of the DRUG demo and of the papers' ``retro.csv`` (skipped where absent) is sent as a
prediction and inside an explanation, through the Machine pane, the conversation, the outcome banner,
the review's message card and sessions table, and the instance's description; what each pane is given
to draw is compared with the input, and so are the terminal lines drawn for a few SMILES that hold,
together, every character and bracket atom of them all.
"""

from __future__ import annotations

import csv
import re
from importlib.resources import as_file, files
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from pxp_harness import internals
from pxp_tui.app.picture.instance_info import describe
from pxp_tui.app.review.message_card import MessageCard
from pxp_tui.app.review.sessions_screen import row_cells
from pxp_tui.app.session.outcome import SessionOutcome
from pxp_tui.app.session.widgets.conversation import Conversation
from pxp_tui.app.session.widgets.machine_pane import MachinePane
from pxp_tui.app.session.widgets.outcome_banner import OutcomeBanner
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag, session_flags

FLUTAMIDE = "CC(C)C(=O)Nc1ccc([N+](=O)[O-])c(C(F)(F)F)c1"


def demo_smiles() -> list[str]:
    with as_file(files("pxp_tui.assets") / "demo" / "drug.csv") as path, path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return sorted({s for r in rows for s in (r["input"], r["output"])})


def retro_smiles(folder: Path) -> list[str]:
    with (folder / "retro.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return sorted({s for r in rows for s in (r["input"], r["output"])})


def explanation_of(smiles: str) -> str:
    return f"The target forms from {smiles} in one step; [see](the *notes*) and **not** `code`."


class Panes(App):
    """Every pane that shows a message's text, one above the other, wide enough for a SMILES on a line."""

    CSS = "Vertical > * { height: auto; max-height: 30; } #conversation { height: 12; }"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield MachinePane(id="machine")
            yield Conversation(id="conversation")
            yield OutcomeBanner(id="outcome")
            yield Vertical(id="cards")
            yield Static(id="describe")
            yield DataTable(id="table")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("#", "instance")


def plain(widget) -> str:
    return str(widget.render())


def screen_lines(app: App) -> list[str]:
    return internals.screen_lines(app.screen)


async def show_everywhere(app: Panes, pilot, smiles: str, *, drawn: bool = True) -> None:
    from pxp_tui.tasks import get_task

    explanation = explanation_of(smiles)
    machine = Message(1, 3, Sender.MACHINE, Tag.RATIFY, smiles, explanation)
    app.query_one(MachinePane).show(machine)
    conversation = app.query_one(Conversation)
    conversation.clear()
    conversation.add(machine)
    app.query_one(OutcomeBanner).show(SessionOutcome.of(0, 1, 10, StopReason.RATIFIED, [machine], "alice"))
    cards = app.query_one("#cards")
    await cards.remove_children()
    await cards.mount(MessageCard(machine))
    task = get_task("drug")
    app.query_one("#describe", Static).update(describe(task, Instance(1, "demo", "k", input=smiles)))
    table = app.query_one(DataTable)
    table.clear()
    table.add_row(1, row_cells_instance(smiles)[1])
    if drawn:  # let the screen draw it
        await pilot.pause()


def row_cells_instance(name: str) -> list:
    from pxp_tui.blackboard.review import SessionRow

    row = SessionRow(session_id=1, order=0, instance=name, tags=(), flags=session_flags([]), n_messages=0, stop_reason=None)
    return row_cells(row)


def check_given(app: Panes, smiles: str) -> None:
    """What each pane is given to draw."""
    explanation = explanation_of(smiles)
    assert plain(app.query_one("#machine-prediction")) == f"Prediction: {smiles}"
    assert plain(app.query_one("#machine-explanation")) == explanation
    entry = plain(app.query_one("Conversation .entry"))
    assert entry.splitlines()[1:] == [f"Prediction: {smiles}", explanation]
    body = plain(app.query_one("#outcome-text")).splitlines()
    last = body[next(i for i, line in enumerate(body) if line.startswith("Last message:")) :]
    assert last[1:] == [f"Prediction: {smiles}", explanation]
    assert plain(app.query_one(".card-prediction")) == f"prediction  {smiles}"
    assert plain(app.query_one(".card-explanation")) == explanation
    assert f"smiles {smiles}" in plain(app.query_one("#describe"))
    cell = app.query_one(DataTable).get_cell_at((0, 1))
    assert str(cell) == smiles


def check_drawn(app: Panes, smiles: str) -> None:
    """What the terminal shows: the prediction line, whole, in each pane that labels it."""
    lines = screen_lines(app)
    assert sum(f"Prediction: {smiles}" in line for line in lines) == 3  # machine pane, conversation, outcome
    assert any(f"prediction  {smiles}" in line for line in lines)  # the review's card
    assert sum(smiles in line for line in lines) >= 8  # and inside every explanation, the description, the table


def features(smiles: str) -> set[str]:
    """What a terminal could draw other than as sent: each character (markup reads ``[...]``, Markdown ``*``,
    ``_``, a backquote, ``#``...) and each bracket atom (``[N+]``, ``[C@@H]``: markup tags and actions)."""
    return set(smiles) | set(re.findall(r"\[[^\]]*\]", smiles))


def covering(smiles_list: list[str]) -> list[str]:
    """A few of the SMILES that hold, together, every feature of them all, and the longest (the width)."""
    needed = set().union(*map(features, smiles_list))
    chosen = [max(smiles_list, key=len)]
    needed -= features(chosen[0])
    while needed:
        best = max(smiles_list, key=lambda s: (len(features(s) & needed), len(s)))
        chosen.append(best)
        needed -= features(best)
    return chosen


async def _check_all(smiles_list: list[str]) -> None:
    """Every SMILES through every pane (what each is given to draw); drawn on the terminal and read back for a
    few that hold every character and bracket atom of them all (drawing all of them is most of the time)."""
    on_screen = set(covering(smiles_list))
    app = Panes()
    async with app.run_test(size=(220, 140)) as pilot:
        for smiles in smiles_list:
            if smiles in on_screen:
                await show_everywhere(app, pilot, smiles)
                check_given(app, smiles)
                check_drawn(app, smiles)
            else:
                with app.batch_update():  # no frame drawn meanwhile
                    await show_everywhere(app, pilot, smiles, drawn=False)
                    check_given(app, smiles)


async def test_flutamide_is_identical_in_every_pane() -> None:
    assert FLUTAMIDE in demo_smiles()
    await _check_all([FLUTAMIDE])


async def test_every_smiles_of_the_drug_demo_is_shown_as_sent() -> None:
    await _check_all(demo_smiles())


@pytest.mark.slow
async def test_every_smiles_of_retro_csv_is_shown_as_sent(shared_data: Path) -> None:
    smiles = retro_smiles(shared_data)
    assert any("[" in s for s in smiles)  # bracket atoms: what markup and Markdown would eat
    await _check_all(smiles)
