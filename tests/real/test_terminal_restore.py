"""The real `pxp` in a real terminal (tmux), killed by a fatal signal it cannot handle: the terminal is given
back (the normal screen, the cursor shown, mouse reporting off, a sane tty mode) and the run resumes."""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP, Tmux, children, cmdline, expert_turn, gone, run_finished
from pxp_harness.waiting import poll
from pxp_tui.blackboard import Blackboard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python"),
]

PANE = "shell"
#: what tmux knows of the pane's terminal modes
MODES = "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{mouse_sgr_flag}"
APP_MODES = "1 0 1 1"  # Textual's: the alternate screen, no cursor, mouse reporting (SGR)
NORMAL_MODES = "0 1 0 0"
SANE = ("icanon", "echo", "isig", "icrnl", "opost")  # a shell's line mode, as `stty sane` sets it
#: what the line says of each signal (Python's own words, for those it reports)
WHAT = {
    signal.SIGSEGV: "Segmentation fault",
    signal.SIGABRT: "Aborted",
    signal.SIGBUS: "Bus error",
    signal.SIGKILL: "it was killed",
}


@pytest.fixture
def tmux(tmp_path: Path):
    server = Tmux(tmp_path)
    yield server
    server.close()


def modes(tmux: Tmux) -> str:
    return tmux.tmux("display-message", "-p", "-t", PANE, MODES).strip()


def wait_modes(tmux: Tmux, wanted: str) -> None:
    poll(lambda: modes(tmux) == wanted, f"the pane's modes to be {wanted!r} (they are {modes(tmux)!r})")


def pxp_in_shell(tmux: Tmux) -> int:
    """The pid of the `pxp` the pane's shell started (its other processes, the terminal's watcher and RDKit's
    worker, are its children)."""
    shell = children(int(tmux.tmux("list-panes", "-t", PANE, "-F", "#{pane_pid}").strip()))[0]
    found = [p for p in children(shell) if "pxp" in cmdline(p)]
    assert found, "no pxp process in the shell"
    return found[0]


def run_status(db: Path) -> str:
    with Blackboard.open(db, readonly=True) as board:
        return board.run(1).status.value


@pytest.mark.parametrize("signum", [signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL], ids=lambda s: s.name)
def test_a_fatal_signal_gives_the_terminal_back_and_the_run_resumes(tmux: Tmux, tmp_path: Path, signum: int) -> None:
    db = tmp_path / "sessions.db"
    tmux.start(PANE, ["sh", "-i"])  # dash: an interactive shell that restores nothing itself
    tmux.wait(PANE, r"(?m)^[$#] ?$")  # the prompt
    tmux.keys(PANE, f"{PXP} run --task drug --human alice --limit 2 --db {db}", "Enter")
    expert_turn(tmux, PANE, 1, 2)
    assert modes(tmux) == APP_MODES
    pid = pxp_in_shell(tmux)

    os.kill(pid, signum)
    assert gone(pid)
    wait_modes(tmux, NORMAL_MODES)
    what = WHAT[signum]
    screen = tmux.wait(PANE, rf"pxp: ended abruptly \({what}\); the terminal is restored")
    assert screen.count("pxp: ended abruptly") == 1
    report = tmp_path / ".cache" / "pxp-tui" / "last-crash.txt"  # HOME is tmp_path
    if signum == signal.SIGKILL:
        assert not report.exists()  # nothing could report it
    else:  # Python's fatal-error report, where the line says, for a bug report
        assert "Its report: " in screen
        # written once the process has gone, after the line
        poll(lambda: report.exists() and report.read_text().strip(), "the fatal-error report")
        assert report.read_text().startswith(f"Fatal Python error: {what}")
        assert report.stat().st_mode & 0o777 == 0o600
    tmux.keys(PANE, "stty -a", "Enter")
    settings = tmux.wait(PANE, r"\bicanon\b|-icanon")
    for mode in SANE:
        assert re.search(rf"(?<![-\w]){mode}\b", settings), f"the tty mode lacks {mode}:\n{settings}"
    assert run_status(db) in ("interrupted", "paused")  # not `running`: it resumes

    if signum != signal.SIGSEGV:
        return
    tmux.keys(PANE, "clear", "Enter")
    tmux.keys(PANE, f"{PXP} run --resume 1 --db {db}", "Enter")
    for session in (1, 2):
        expert_turn(tmux, PANE, session, 2)
        tmux.keys(PANE, "1", "C-s")
    run_finished(tmux, PANE)
    tmux.keys(PANE, "q")
    wait_modes(tmux, NORMAL_MODES)
    assert run_status(db) == "done"
    assert "pxp: ended abruptly" not in tmux.screen(PANE)  # a clean exit says nothing
