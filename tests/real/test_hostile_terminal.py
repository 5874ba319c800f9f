"""Escape sequences from a model, a dataset and a blackboard, through the real ``pxp`` in a real terminal (tmux).

The blackboard of ``pxp_harness/hostile.py`` (a hostile CSV imported, the stub model's hostile replies, fields
written with ``sqlite3``) is opened by the live app, the review and every command, each in a pane
of a private tmux server that honours what such sequences ask: the pane's title (OSC 0 and 2), its
clipboard (OSC 52, ``set-clipboard on``), its screen (``ESC[2J``, cursor moves, ``\\r``). After each: the
title is the pane's own, no clipboard buffer exists, the screen still shows what was drawn before, the
escapes are on it as text, and the blackboard holds the text exactly as it was sent.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pxp_harness.hostile import ESCAPES, REPLY, hostile, hostile_board, leaks, machine_reply, shown, stored
from pxp_harness.stub import StubServer
from pxp_harness.terminal import PXP, Tmux, expert_turn

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python"),
]

KEY = "sk-test-hostile-0000000000000000"
TALL = (160, 150)  # every command's output on one screen: a wipe would show


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with StubServer(reply=machine_reply) as server:
        yield server


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A private server that honours OSC 52 (a clipboard buffer); its first pane is the title every pane starts with."""
    server = Tmux(tmp_path, env={"OPENAI_API_KEY": KEY, "PXP_RETRY_DELAY": "0"})
    server.start("keeper", ["sleep", "600"])
    server.tmux("set-option", "-g", "set-clipboard", "on")
    yield server
    server.close()


@pytest.fixture
def board(tmp_path: Path, stub: StubServer, capsys: pytest.CaptureFixture[str]) -> Path:
    return hostile_board(tmp_path, stub.url, capsys)


def untouched(tmux: Tmux, name: str, before: str) -> str:
    """The pane's screen, after checking that nothing a terminal acts on reached it: its title is ``before``,
    no clipboard buffer was written, and no raw control character is on it."""
    assert tmux.title(name) == before, f"the title became {tmux.title(name)!r}"
    assert tmux.tmux("list-buffers") == "", "a clipboard buffer was written (OSC 52)"
    screen = tmux.screen(name)
    assert not leaks(screen)
    return screen


def test_the_live_app_and_the_review_show_the_escapes_as_text(tmux: Tmux, board: Path) -> None:
    before = tmux.title("keeper")
    tmux.start("app", [str(PXP), "run", "--resume", "2", "--db", str(board)])
    screen = expert_turn(tmux, "app", 1, 1)
    screen = untouched(tmux, "app", before)
    for pane in ("Conversation", "Machine", "Your answer", "Metrics", "Your turn"):  # drawn, not wiped
        assert pane in screen, pane
    for label in ("name", "reply"):  # the instance's name, the machine's explanation (twice: pane, conversation)
        assert shown(label) in screen, label
    tmux.keys("app", "1", "C-s")  # RATIFY, the prefilled answer unchanged
    screen = tmux.wait("app", "enter: the run's summary")
    assert "Session 1 ended" in untouched(tmux, "app", before)
    tmux.keys("app", "Enter")
    tmux.wait("app", "The run is finished")
    assert shown("expert") in untouched(tmux, "app", before)  # the summary names the expert
    tmux.keys("app", "q")
    assert tmux.exit_code("app") == 0

    sql = "SELECT explanation FROM messages m JOIN data d USING (session_id) WHERE d.run_id = 2 AND m.j <= 2 ORDER BY m.j"
    machine, expert = stored(board, sql)
    assert ESCAPES in machine and machine in REPLY  # stored as the model sent it
    assert expert == machine  # the expert ratified what was stored, shown as text

    tmux.start("review", [str(PXP), "review", "--db", str(board)], size=TALL)  # every card of the replay
    tmux.wait("review", re.escape(shown("expert")))  # the runs' table, filled by a worker after the title
    assert shown("expert") in untouched(tmux, "review", before)
    tmux.keys("review", "Enter")  # run 1's sessions (the headless run's)
    tmux.wait("review", "Run 1 ·")
    assert shown("name") in untouched(tmux, "review", before)
    tmux.keys("review", "Enter")  # its first session, replayed
    tmux.wait("review", "message 1 / ")
    tmux.keys("review", "a")  # every message
    tmux.wait("review", r"│ j=4 ")  # the last message's card, drawn (by a worker, after the footer)
    screen = untouched(tmux, "review", before)
    tmux.keys("review", "Home")  # the first message alone: the machine's reply, beside the reference answer's card
    tmux.wait("review", r"(?s)\A(?!.*│ j=2 ).*" + re.escape(shown("reply")))
    screen += untouched(tmux, "review", before)
    for label in ("name", "reply", "dataset", "prediction", "label", "note"):
        assert shown(label) in screen, f"{label}:\n{screen}"
    tmux.keys("review", "q")
    assert tmux.exit_code("review") == 0
    assert set(stored(board, "SELECT note FROM annotations")) == {hostile("note")}


def test_every_command_prints_the_escapes_as_text(tmux: Tmux, board: Path, tmp_path: Path) -> None:
    """``pxp run --headless``, metrics, report, export, datasets and an error quoting data, each in a pane of its own
    with a line printed before it: still on the screen after it."""
    before = tmux.title("keeper")
    (tmp_path / "experiment.txt").write_text(hostile("missing"), encoding="utf-8")
    db = shlex.quote(str(board))
    commands = {
        "headless": f"run --headless --resume 3 --db {db}",
        "metrics": f"metrics --db {db}",
        "report": f"report --by expert --db {db} --out report",
        "export": f"export --format csv --table annotations --out export --db {db}",
        "notes": f"export --format csv --table annotations --out - --db {db}",  # data to a terminal: visible
        "datasets": f"datasets --db {db}",
        "error": f'report --experiment "$(cat experiment.txt)" --db {db}',
    }
    expected = {"headless": "name", "report": "expert", "notes": "note", "datasets": "set", "error": "missing"}
    for name, arguments in commands.items():
        shell = f"echo FIRST-LINE; {shlex.quote(str(PXP))} {arguments}; echo LAST-LINE; exec sleep 600"  # the pane stays
        tmux.start(name, ["sh", "-c", shell], size=TALL)
        tmux.wait(name, "LAST-LINE")
        screen = untouched(tmux, name, before)
        assert screen.lstrip().startswith("FIRST-LINE"), f"{name}: the screen was wiped or written over:\n{screen}"
        if name in expected:
            assert shown(expected[name]) in screen, name
    assert stored(board, "SELECT status FROM runs WHERE id = 3") == ["done"]
    assert hostile("note") in (tmp_path / "export" / "annotations.csv").read_bytes().decode()  # files: exact
    assert hostile("expert") in (tmp_path / "report" / "intelligibility.csv").read_bytes().decode()
