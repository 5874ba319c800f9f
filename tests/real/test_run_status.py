"""Runs never stay 'running' after their process is gone.

A stop signal (SIGINT, SIGTERM, SIGHUP: the terminal closed) pauses the run with the reason; a run
whose process died with kill -9 is shown as interrupted by the start screen, the review, `pxp
metrics` and `pxp report`: its writer held a lock (on a byte of the blackboard file) that died with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from pxp_harness.app_helpers import wait_for
from pxp_harness.cli_helpers import pxp as pxp_here
from pxp_harness.outside import env
from pxp_harness.terminal import PXP, Tmux, expert_turn, gone, needs_tmux
from pxp_harness.waiting import PATIENCE, poll
from pxp_tui.app.review import ReviewApp
from pxp_tui.app.shell.pxp_app import PXPApp
from pxp_tui.app.start import screen as start
from pxp_tui.blackboard import Blackboard, BlackboardError, review
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run

from ..conftest import ROOT, pxp

HOLD = """
import sys, time
from pxp_tui.blackboard import Blackboard
board = Blackboard.open(sys.argv[1])
with board.writing(int(sys.argv[2])):
    board.set_status(int(sys.argv[2]), "running")
    print("held", flush=True)
    time.sleep(600)
"""


def board_with_runs(db: Path, count: int = 1, **fields) -> None:
    with Blackboard.open(db) as board:
        for _ in range(count):
            create_run(board, RunConfig(limit=2, **fields))


def set_status(db: Path, status: str, run_id: int = 1) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE runs SET status = ? WHERE id = ?", [status, run_id])
    conn.close()


def shown(db: Path) -> list[str]:
    with Blackboard.open(db, readonly=True) as board:
        return [r.run.status for r in review.runs(board)]


def holder(db: Path, run_id: int = 1) -> subprocess.Popen:
    """Another process driving run ``run_id`` (holding its writer lock) until killed."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(db), str(run_id)], env=env(), stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def test_a_run_shows_running_while_its_writer_lives_and_interrupted_once_it_is_killed(db_path: Path) -> None:
    board_with_runs(db_path, 2)
    process = holder(db_path, 2)
    try:
        set_status(db_path, "running", 1)  # what a run killed earlier left in the file
        assert shown(db_path) == ["interrupted", "running"]
    finally:
        process.kill()
        process.wait()
    assert shown(db_path) == ["interrupted", "interrupted"]
    assert [r[0] for r in sqlite3.connect(db_path).execute("SELECT status FROM runs")] == ["running", "running"]


def test_a_second_writer_of_a_run_is_refused_while_the_first_lives(db_path: Path) -> None:
    board_with_runs(db_path)
    process = holder(db_path)
    try:
        with (
            Blackboard.open(db_path) as board,
            pytest.raises(BlackboardError, match="being written by another pxp"),
            board.writing(1),
        ):
            pass
    finally:
        process.kill()
        process.wait()
    with Blackboard.open(db_path) as board:
        with board.writing(1):
            with pytest.raises(BlackboardError, match="already being driven"), board.writing(1):
                pass
            assert board.run(1).status == "running"  # left by the killed holder; this process holds it now
        with board.writing(1):  # let go: taken again
            pass


def test_deleting_files_beside_the_blackboard_lets_no_second_process_drive_the_run(db_path: Path) -> None:
    board_with_runs(db_path)
    process = holder(db_path)
    try:
        beside = [
            p for p in db_path.parent.iterdir() if p.name not in (db_path.name, f"{db_path.name}-wal", f"{db_path.name}-shm")
        ]
        for path in [*beside, db_path.with_name(db_path.name + ".lock")]:  # what an older pxp locked
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        result = pxp("run", "--headless", "--resume", "1", "--db", str(db_path))
        assert result.returncode == 2
        assert result.stderr.strip() == "pxp: error: run 1 is being written by another pxp process (close it there first)"
        assert shown(db_path) == ["running"]
    finally:
        process.kill()
        process.wait()
    assert shown(db_path) == ["interrupted"]


def test_a_copy_of_a_file_being_written_shows_the_run_interrupted(db_path: Path, tmp_path: Path) -> None:
    board_with_runs(db_path)
    process = holder(db_path)
    try:
        copy = tmp_path / "copy.db"
        source, target = sqlite3.connect(db_path), sqlite3.connect(copy)
        source.backup(target)
        source.close(), target.close()
        assert shown(db_path) == ["running"]
        assert shown(copy) == ["interrupted"]
    finally:
        process.kill()
        process.wait()


def test_a_run_and_its_readers_leave_no_file_beside_the_blackboard(db_path: Path) -> None:
    done = pxp("run", "--headless", "--limit", "2", "--db", str(db_path))
    assert done.returncode == 0, done.stderr
    board_with_runs(db_path)
    set_status(db_path, "running", 2)
    assert shown(db_path) == ["done", "interrupted"]
    beside = [p.name for p in db_path.parent.iterdir() if not p.name.endswith(("-wal", "-shm"))]  # SQLite's own
    assert beside == [db_path.name]


async def test_the_start_screen_lists_a_killed_run_as_interrupted(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "none")
    board_with_runs(db_path, human_kind=HumanKind.LIVE, expert="alice")
    set_status(db_path, "running")
    app = PXPApp(db_path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: isinstance(app.screen, start.StartScreen) and app.screen, "the start screen")
        runs = screen.query_one("#start-unfinished", OptionList)
        await wait_for(pilot, lambda: runs.option_count and runs.get_option_at_index(0).id == "1", "the unfinished runs")
        label = str(runs.get_option_at_index(0).prompt)
    assert "interrupted" in label and "running" not in label


async def test_the_review_shows_a_killed_run_as_interrupted_not_being_written(db_path: Path) -> None:
    board_with_runs(db_path)
    set_status(db_path, "running")
    app = ReviewApp(db_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: "run(s)" in str(app.screen.query_one("#runs-status", Static).render()), "the runs")
        status = str(app.screen.query_one("#runs-status", Static).render())
        cells = [str(c) for c in app.screen.query_one("#runs-table").get_row_at(0)]
        assert "being written" not in status
        assert "interrupted" in cells
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: "interrupted" in str(app.screen.query_one("#sessions-title", Static).render()), "the run's sessions"
        )


def test_metrics_and_report_show_a_killed_run_as_interrupted(db_path: Path) -> None:
    board_with_runs(db_path)
    set_status(db_path, "running")
    metrics = pxp("metrics", "--json", "--db", str(db_path))
    assert metrics.returncode == 0, metrics.stderr
    assert [r["status"] for r in json.loads(metrics.stdout)] == ["interrupted"]
    report = pxp("report", "--db", str(db_path))
    assert report.returncode == 0, report.stderr
    assert "| interrupted |" in report.stdout


# -- stop signals: the run pauses with the reason ----------------------------------------------------
#: RESUMED: the run signalled or killed is a real process; its --resume is the same command run in this
#: process (pxp_harness/cli_helpers.py), which spares starting Python and importing litellm once more
def headless(db: Path, *extra: str, latency: float = 0.05) -> subprocess.Popen:
    command = [sys.executable, "-m", "pxp_tui", "run", "--headless", "--db", str(db), *extra]
    return subprocess.Popen(
        command,
        env={**env(), "PYTHONPATH": str(ROOT), "PXP_OFFLINE_LATENCY": str(latency)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_messages(db: Path, count: int, process: subprocess.Popen) -> None:
    def found() -> bool:
        assert process.poll() is None, "the run ended before the signal"
        try:
            conn = sqlite3.connect(db)
            found = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            conn.close()
        except sqlite3.OperationalError:  # not made yet
            found = 0
        return found >= count

    poll(found, f"{count} messages of the run", patience=120)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "reason"),
    [("SIGTERM", "terminated (SIGTERM)"), ("SIGHUP", "terminal closed (SIGHUP)"), ("SIGINT", "interrupted (SIGINT)")],
)
def test_a_stop_signal_pauses_a_headless_run_with_the_reason(capsys, db_path: Path, name: str, reason: str) -> None:
    process = headless(db_path, "--limit", "6")
    wait_for_messages(db_path, 4, process)
    signum = getattr(signal, name)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    assert f"pxp: run 1 paused: {reason}; resume with: pxp run --headless --resume 1" in err
    assert "Traceback" not in err
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT status, error FROM runs").fetchall() == [("paused", reason)]
    conn.close()
    code, _, err = pxp_here(capsys, "run", "--headless", "--resume", "1", "--db", db_path, "--quiet")  # see RESUMED
    assert code == 0, err
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT status, COUNT(d.session_id) FROM runs JOIN data d ON d.run_id = runs.id").fetchall() == [
        ("done", 6)
    ]  # fmt: skip
    conn.close()


@pytest.mark.slow
def test_sigterm_pauses_every_run_of_an_experiment(db_path: Path) -> None:
    process = headless(db_path, "--limit", "6", "--repeat", "3")
    wait_for_messages(db_path, 6, process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "paused: terminated (SIGTERM)" in err
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT status, error FROM runs").fetchall() == [("paused", "terminated (SIGTERM)")] * 3
    conn.close()


@pytest.mark.slow
def test_kill_9_of_a_headless_run_shows_interrupted_then_resume_runs_again(capsys, db_path: Path) -> None:
    process = headless(db_path, "--quiet", "--limit", "6", latency=1.0)  # slow: a second writer is tried meanwhile
    wait_for_messages(db_path, 1, process)
    assert shown(db_path) == ["running"]
    refused = pxp("run", "--headless", "--resume", "1", "--db", str(db_path))
    assert refused.returncode == 2
    assert "run 1 is being written by another pxp process" in refused.stderr
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert shown(db_path) == ["interrupted"]
    code, _, err = pxp_here(capsys, "run", "--headless", "--resume", "1", "--db", db_path, "--quiet")  # see RESUMED
    assert code == 0, err
    assert shown(db_path) == ["done"]


@pytest.mark.slow
@needs_tmux
@pytest.mark.parametrize("how", ["SIGTERM", "terminal closed"])
def test_the_app_pauses_its_run_with_the_reason_and_exits_on_sigterm_or_a_closed_terminal(tmp_path: Path, how: str) -> None:
    db = tmp_path / "live.db"
    tmux = Tmux(tmp_path)
    try:
        tmux.start("app", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", "3", "--db", str(db)])
        expert_turn(tmux, "app", 1, 3)
        tmux.keys("app", "1", "C-s")
        expert_turn(tmux, "app", 2, 3)
        pid = tmux.pxp_pid("app")
        assert shown(db) == ["running"]
        if how == "SIGTERM":
            os.kill(pid, signal.SIGTERM)
            assert tmux.exit_code("app") == 128 + signal.SIGTERM
        else:
            tmux.kill_session("app")  # tmux sends SIGHUP, as a closed terminal or ssh connection does
        assert gone(pid), "the app is still running"
    finally:
        tmux.close()
    reason = "terminated (SIGTERM)" if how == "SIGTERM" else "terminal closed (SIGHUP)"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT status, error FROM runs").fetchall() == [("paused", reason)]
    assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 4  # session 1, and session 2's first
    conn.close()


@pytest.mark.slow
@needs_tmux
@pytest.mark.parametrize("command", [[], ["run", "--task", "drug", "--human", "alice", "--limit", "3"]], ids=["start", "run"])
def test_the_app_ends_when_its_terminal_closes_as_it_starts(tmp_path: Path, command: list[str]) -> None:
    """A terminal closed in the app's first moments (an ssh connection dropped at once): Textual's writer to
    the terminal dies on the closed terminal, and its shutdown then waited for it for ever."""
    db = tmp_path / "live.db"
    for trial in range(3):
        tmux = Tmux(tmp_path)
        try:
            tmux.start("app", [str(PXP), *command, "--db", str(db)] if command else [str(PXP)])
            tmux.wait("app", "Your turn" if command else "New run", step=0.005)  # as soon as it shows
            pid = tmux.pxp_pid("app")
            tmux.kill_session("app")  # at its first frames, while it still writes a lot
            assert gone(pid, patience=20), f"trial {trial + 1}: pxp still runs after its terminal closed"
        finally:
            tmux.close()
    if command:
        conn = sqlite3.connect(db)
        assert {row[0] for row in conn.execute("SELECT error FROM runs")} == {"terminal closed (SIGHUP)"}
        conn.close()


#: a key sent to the app, and what Textual's log says once the app has handled it (a regular expression that
#: matches one line more than before); None: the last key, which ends the app
Key = tuple[bytes, str | None]


def screen_shown(screen: str) -> str:
    """The log's line for ``screen`` (the name of its class) coming on top: pushed, or back."""
    return rf"^ScreenResume\(.*\) >>> {screen}\("


#: the log's line for a picture drawn (its worker done)
PICTURE_DRAWN = r"^StateChanged\(<Worker SUCCESS .*group='picture'.*>>> Picture\("


def in_stalling_terminal(command: list[str], shown: bytes, then: list[Key], keys: list[Key], log: Path) -> int:
    """Start ``command`` in a 160 x 48 pseudo-terminal and read its output until ``shown`` is on the screen,
    sending each of ``then`` (reading on); then stop reading, as a stalled terminal does, and send ``keys``.
    Each key is sent once the app has handled the one before it: what the terminal cannot show any more,
    Textual's log (``TEXTUAL_LOG``, written to ``log``) says. Returns the pid, for :func:`gone` (the caller
    kills it if need be)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    def logged(pattern: str) -> int:
        text = log.read_text(errors="replace") if log.exists() else ""
        return len(re.findall(pattern, text, re.MULTILINE))

    def send(key: Key, reading: bool) -> None:
        data, handled = key
        before = logged(handled) if handled else 0
        os.write(fd, data)
        if handled is None:
            return

        def done() -> bool:
            if reading and select.select([fd], [], [], 0.05)[0]:
                os.read(fd, 65536)
            return logged(handled) > before

        poll(done, f"{handled!r} in the log after {data!r}")

    pid, fd = pty.fork()
    if pid == 0:  # 160 x 48: a screen's repaint with an X-ray is more than the terminal's buffer holds
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
        os.environ.update({"PXP_IMAGES": "halfcell", "TERM": "xterm-256color", "COLORTERM": "truecolor", "TEXTUAL_LOG": str(log)})
        os.execv(command[0], command)
    STALLED.append((pid, fd))
    seen, deadline = b"", time.monotonic() + PATIENCE
    while shown not in seen:  # read until the screen shows what the test waits for
        assert time.monotonic() < deadline, seen[-2000:]
        if select.select([fd], [], [], 0.1)[0]:
            seen += os.read(fd, 65536)
    for key in then:
        send(key, reading=True)
    while select.select([fd], [], [], 0.2)[0]:  # what it wrote meanwhile: the terminal is drained, once
        os.read(fd, 65536)
    for key in keys:  # from now on nothing is read: the terminal has stopped
        send(key, reading=False)
    return pid


STALLED: list[tuple[int, int]] = []  # (pid, terminal) of each process started by in_stalling_terminal


@pytest.fixture
def stalled():
    yield
    while STALLED:
        pid, fd = STALLED.pop()
        with contextlib.suppress(ProcessLookupError):  # ended by now, or killed: no stray process either way
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


@pytest.mark.slow
@pytest.mark.skipif(not PXP.exists(), reason="needs the pxp command")
def test_quitting_ends_the_app_even_when_its_terminal_stops_reading(tmp_path: Path, stalled: None) -> None:
    """A terminal that stops taking output (a stalled ssh connection, a paused multiplexer): the app's last frames
    cannot be written, and Textual's goodbye waited for them for ever. Quitting is bounded (``GOODBYE``): the
    run is paused, every message shown is in the blackboard, and the process ends."""
    from pxp_tui.app.shared.goodbye import GOODBYE

    db = tmp_path / "live.db"
    command = [str(PXP), "run", "--task", "rad", "--human", "alice", "--limit", "3", "--db", str(db)]
    pid = in_stalling_terminal(
        command, b"Your turn", [], [(b"q", screen_shown("ConfirmScreen")), (b"y", None)], tmp_path / "textual.log"
    )
    assert gone(pid, patience=GOODBYE + 20), "pxp still runs after quitting, its terminal stopped"
    conn = sqlite3.connect(db)
    status = conn.execute("SELECT status FROM runs").fetchall()
    shown = conn.execute("SELECT j, sender FROM messages").fetchall()
    conn.close()
    assert status == [("paused",)] and shown == [(1, "machine")]  # the machine's first message, kept


@pytest.mark.slow
@pytest.mark.skipif(not PXP.exists(), reason="needs the pxp command")
def test_quitting_the_review_ends_it_even_when_its_terminal_stops_reading(tmp_path: Path, stalled: None) -> None:
    """The same for ``pxp review``: a session replayed with its X-ray, the terminal stops reading, the expert goes
    back and forth (each screen a repaint the terminal does not take), then quits: the process ends."""
    from pxp_tui.app.shared.goodbye import GOODBYE

    db = tmp_path / "done.db"
    done = pxp("run", "--headless", "--task", "rad", "--limit", "2", "--db", str(db))  # a finished run to review
    assert done.returncode == 0, done.stderr
    command = [str(PXP), "review", "--db", str(db)]
    then: list[Key] = [(b"\r", screen_shown("SessionsScreen")), (b"\r", PICTURE_DRAWN)]  # the replay, its X-ray drawn
    # once: Textual queues 30 writes for a terminal that does not read, then its loop waits; how many frames a
    # round trip takes varies with the machine's load (a loaded one drew past 30 in two round trips)
    back_and_forth: list[Key] = [(b"\x1b", screen_shown("SessionsScreen")), (b"\r", screen_shown("ReplayScreen"))]
    pid = in_stalling_terminal(command, b"run(s)", then, [*back_and_forth, (b"q", None)], tmp_path / "textual.log")
    assert gone(pid, patience=GOODBYE + 20), "pxp review still runs after quitting, its terminal stopped"
