"""Crash scenarios: the real ``pxp`` writing, real outside readers, ``kill -9`` at a random moment, then checks.

Each scenario returns a :class:`Trial`: how many messages were shown (on the app's screen) or printed
(a headless session line), how many of those the file lacks, whether ``PRAGMA integrity_check`` is
ok, whether ``--resume`` finished the run(s) with exactly the planned sessions and no duplicate or
missing ``j``, and how often ``/proc/PID/fd`` showed the writer holding a deleted db, -wal or -shm.
Used by tests/real/test_durability.py (a few trials) and benchmarks/crash_campaign.py (many).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pxp_harness.outside import Readers, deleted_files, env
from pxp_harness.terminal import PXP, Tmux, expert_turn, gone
from pxp_harness.waiting import poll

SCENARIOS = ("app", "headless", "repeat")
PATIENCE = 120.0  # a bound against hanging, not a timing assertion


@dataclass
class Trial:
    scenario: str
    seed: int
    shown: int = 0  # messages shown on screen (app) or printed in a session line (headless)
    lost: int = 0  # of those, missing from the file after the kill
    integrity: bool = True
    resumed: bool = True  # --resume finished every run with the planned sessions, no j missing or twice
    deleted: int = 0  # samples of the writer's /proc/PID/fd naming a deleted db, -wal or -shm
    reads: int = 0  # outside reads done meanwhile
    killed: str = ""  # when the writer was killed
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.integrity and self.resumed and self.deleted == 0 and not self.problems


class FdWatch:
    """Samples ``/proc/PID/fd`` of the writer every 50 ms, counting deleted db/-wal/-shm descriptors."""

    def __init__(self, pid: int, db: Path):
        self.pid, self.db = pid, db
        self.deleted: list[str] = []
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            self.deleted += deleted_files(self.pid, self.db)
            self.samples += 1

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return len(self.deleted)


def query(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def integrity(db: Path) -> bool:
    return query(db, "PRAGMA integrity_check") == [("ok",)]


def sequences(db: Path, run_id: int) -> list[tuple[int, int, str, str, str]]:
    """(session order, j, sender, tag, prediction) of every message of run ``run_id``."""
    return query(
        db,
        """SELECT d.ord, m.j, m.sender, m.tag, m.prediction FROM messages m JOIN data d USING (session_id)
                        WHERE d.run_id = ? ORDER BY d.ord, m.j""",
        (run_id,),
    )


def complete(db: Path, run_id: int) -> list[str]:
    """What is wrong with finished run ``run_id``: sessions planned vs stored, every j from 1 to its last once."""
    problems = []
    (plan,) = query(db, "SELECT json_array_length(plan) FROM runs WHERE id = ?", (run_id,))[0]
    status = query(db, "SELECT status FROM runs WHERE id = ?", (run_id,))[0][0]
    if status != "done":
        problems.append(f"run {run_id} is {status}, not done")
    sessions = query(db, "SELECT ord, session_id, n_messages, stop_reason FROM data WHERE run_id = ? ORDER BY ord", (run_id,))
    if [s[0] for s in sessions] != list(range(plan)):
        problems.append(f"run {run_id}: sessions {[s[0] for s in sessions]} for {plan} planned")
    for order, session_id, n_messages, stop in sessions:
        js = [r[0] for r in query(db, "SELECT j FROM messages WHERE session_id = ? ORDER BY j", (session_id,))]
        if js != list(range(1, len(js) + 1)) or len(js) != n_messages or stop is None:
            problems.append(f"run {run_id} session {order}: j {js}, n_messages {n_messages}, stop {stop}")
    return problems


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


# -- headless: one run, or --repeat 3 -----------------------------------------------------------------
#: a session line of `pxp run --headless`: "[run R  ]session i/N  name  stop  TAG_m TAG_h ..."
_LINE = re.compile(r"^(?:run (\d+)\s+)?session\s+(\d+)/(\d+)\s.*?\s(ratified|rejected|bound)\s+((?:[A-Z]+_[mh]\s*)+)$")
_SENDER = {"m": "machine", "h": "human"}


def printed_sessions(lines: list[str]) -> dict[tuple[int, int], list[tuple[int, str, str]]]:
    """(run, session order) -> its messages (j, sender, tag), from the session lines printed."""
    found = {}
    for line in lines:
        match = _LINE.match(line.rstrip())
        if match:
            run, order, tags = int(match.group(1) or 1), int(match.group(2)) - 1, match.group(5).split()
            found[(run, order)] = [(j, _SENDER[t[-1]], t[:-2]) for j, t in enumerate(tags, start=1)]
    return found


def headless_command(db: Path, repeat: int, limit: int) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "pxp_tui",
        "run",
        "--headless",
        "--task",
        "drug",
        "--model",
        "offline",
        "--human",
        "proxy",
        "--limit",
        str(limit),
        "--db",
        str(db),
    ]
    return command + (["--repeat", str(repeat)] if repeat > 1 else [])


def pxp_resume(db: Path, run: int, *, in_process: bool = False) -> str:
    """``pxp run --headless --resume RUN --db DB --quiet``: what it printed on stderr if it failed, else "".

    In its own process (the campaign), or ``in_process`` (the tests: the same command's code, without starting
    Python and importing litellm once more; the process killed is always a real one)."""
    argv = ["run", "--headless", "--resume", str(run), "--db", str(db), "--quiet"]
    if in_process:
        return _in_process(argv)
    done = subprocess.run(
        [sys.executable, "-m", "pxp_tui", *argv],
        env={**env(), "PXP_OFFLINE_LATENCY": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return "" if done.returncode == 0 else done.stderr.strip()[-300:] or f"exit code {done.returncode}"


def _in_process(argv: list[str]) -> str:
    from pxp_tui.cli.main import main

    err = io.StringIO()  # the tests' environment has PXP_OFFLINE_LATENCY=0 (tests/conftest.py)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return "" if code == 0 else err.getvalue().strip()[-300:] or f"exit code {code}"


def reference(folder: Path, limit: int, *, in_process: bool = False) -> list[tuple]:
    """The messages of an uninterrupted run of the same configuration (the offline machine is deterministic)."""
    db = folder / f"reference-{limit}.db"
    if not db.exists():
        if in_process:
            failed = _in_process([*headless_command(db, 1, limit)[3:], "--quiet"])
            assert not failed, failed
        else:
            done = subprocess.run(
                [*headless_command(db, 1, limit), "--quiet"],
                env={**env(), "PXP_OFFLINE_LATENCY": "0"},
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, done.stderr
    return sequences(db, 1)


def headless_trial(
    folder: Path,
    seed: int,
    *,
    repeat: int = 1,
    limit: int = 12,
    latency: float = 0.02,
    expected: list[tuple] | None = None,
    in_process: bool = False,
) -> Trial:
    """``pxp run --headless`` (``--repeat``), outside readers, kill -9 after a random number of session lines;
    then ``--resume`` of each unfinished run (``in_process``: see :func:`pxp_resume`)."""
    rng = random.Random(seed)
    trial = Trial("repeat" if repeat > 1 else "headless", seed)
    db = folder / f"{trial.scenario}-{seed}.db"
    process = subprocess.Popen(
        headless_command(db, repeat, limit),
        env={**env(), "PXP_OFFLINE_LATENCY": str(latency)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    lines: list[str] = []
    reader = threading.Thread(target=_collect, args=(process.stdout, lines), daemon=True)
    reader.start()
    watch = FdWatch(process.pid, db)
    target = rng.randrange(repeat * limit)  # session lines to see before the kill
    delay = rng.uniform(0, 0.3)
    with Readers(db, rng) as readers:

        def reached() -> bool:  # the target's session lines printed (or the run over before)
            started = bool(lines) and " -> " in lines[0]  # the run(s) are in the file
            return process.poll() is not None or (started and len(printed_sessions(list(lines))) >= target)

        poll(reached, f"{target} session lines", PATIENCE, step=0.01)
        time.sleep(delay)
        finished = process.poll() is not None
        kill(process.pid)
        process.wait()
        reader.join(timeout=30)
    trial.killed = "after it finished" if finished else f"after {len(printed_sessions(lines))} session lines + {delay:.2f} s"
    trial.deleted = watch.stop()
    trial.reads, trial.problems = readers.runs, list(readers.failures)
    printed = printed_sessions(lines)
    trial.shown = sum(len(m) for m in printed.values())
    if not db.exists():
        trial.lost = trial.shown
        return trial
    for (run, order), messages in printed.items():
        stored = {(j, s, t) for o, j, s, t, _ in sequences(db, run) if o == order}
        trial.lost += sum(m not in stored for m in messages)
    trial.integrity = integrity(db)
    runs = [r[0] for r in query(db, "SELECT id FROM runs ORDER BY id")] if _has_runs(db) else []
    for run in runs:
        if query(db, "SELECT status FROM runs WHERE id = ?", (run,))[0][0] != "done":
            failed = pxp_resume(db, run, in_process=in_process)
            if failed:
                trial.problems.append(f"resume {run}: {failed}")
        wrong = complete(db, run)
        if expected is not None and sequences(db, run) != expected:
            wrong.append(f"run {run} differs from the uninterrupted run")
        if wrong:
            trial.resumed = False
            trial.problems += wrong
    if len(runs) != repeat and printed:
        trial.resumed = False
        trial.problems.append(f"{len(runs)} runs in the file, {repeat} made")
    return trial


def _collect(stream: Any, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


def _has_runs(db: Path) -> bool:
    return bool(query(db, "SELECT 1 FROM sqlite_master WHERE name = 'runs'"))


# -- the app -------------------------------------------------------------------------------------------
_HEADER = re.compile(r"session (\d+) of (\d+) · message (\d+) of 10")
_RATIFIED = [(1, "machine", "INIT"), (2, "human", "RATIFY"), (3, "machine", "RATIFY")]


def shown_on(screen: str, limit: int) -> int:
    """Messages the app's screen shows as recorded: sessions before the current one (each ratified at j = 3,
    the expert answering 1 + ctrl+s), then the current one's messages before its next ``j``."""
    if "The run is finished" in screen:
        return 3 * limit
    match = _HEADER.search(screen)
    if match is None:
        return 0
    session, j = int(match.group(1)), int(match.group(3))
    return 3 * (session - 1) + min(j - 1, 3)


def expected_app_messages(shown: int) -> list[tuple[int, int, str, str]]:
    """(session order, j, sender, tag) of the first ``shown`` messages of a run ratified at every turn."""
    return [(order, j, s, t) for order in range(shown // 3 + 1) for j, s, t in _RATIFIED][:shown]


def answer_until_finished(tmux: Tmux, name: str, limit: int) -> str:
    """Answer 1 + ctrl+s at every expert turn until the run is finished; returns the last screen."""
    answered = set()

    def finished() -> str | None:  # the last screen once the run is finished; else the expert's next step
        screen = tmux.screen(name)
        if "The run is finished" in screen:
            return screen
        if "enter: the" in screen:  # a session's outcome: the expert moves on, once
            tmux.keys(name, "Enter")
            poll(lambda: "enter: the" not in tmux.screen(name), "the outcome to close", PATIENCE)
            return None
        match = _HEADER.search(screen)
        if match and "Your turn" in screen and int(match.group(3)) == 2 and match.group(1) not in answered:
            answered.add(match.group(1))
            tmux.keys(name, "1", "C-s")
        return None

    try:
        return poll(finished, "the resumed run's end", PATIENCE, step=0.1)
    except AssertionError:
        raise AssertionError(f"the resumed run never finished; the screen was:\n{tmux.screen(name)}") from None


def app_trial(folder: Path, seed: int, *, limit: int = 6, review: bool = True) -> Trial:
    """The live app (1 + ctrl+s at each turn) beside outside readers and ``pxp review``; kill -9 at a random
    turn, at the turn or a random delay after answering; then the run resumed in the app to its end."""
    rng = random.Random(seed)
    trial = Trial("app", seed)
    run_folder = folder / f"app-{seed}"
    run_folder.mkdir(parents=True, exist_ok=True)
    db = run_folder / "live.db"
    tmux = Tmux(run_folder)
    try:
        tmux.start(
            "app",
            [
                str(PXP),
                "run",
                "--task",
                "drug",
                "--model",
                "offline",
                "--human",
                "expert",
                "--limit",
                str(limit),
                "--db",
                str(db),
            ],
        )
        turn, after = rng.randint(1, limit), rng.random() < 0.5
        delay = rng.uniform(0, 0.5)
        with Readers(db, rng) as readers:
            tmux.wait("app", rf"session 1 of {limit} · message 2 of 10(?s:.*)Your turn", PATIENCE)
            pid = tmux.pxp_pid("app")
            watch = FdWatch(pid, db)
            if review:  # a reader that stays open, refreshing every 2 s while the run is running
                tmux.start("review", [str(PXP), "review", "--db", str(db)])
            shown = 1
            for session in range(1, turn + 1):
                screen = expert_turn(tmux, "app", session, limit)  # past the previous session's outcome
                shown = max(shown, shown_on(screen, limit))
                if session < turn or after:
                    tmux.keys("app", "1", "C-s")
            if after:
                time.sleep(delay)
            shown = max(shown, shown_on(tmux.screen("app"), limit))  # what the screen shows at the kill
            kill(pid)
            assert gone(pid)
        trial.killed = f"session {turn} " + (f"{delay:.2f} s after answering" if after else "at the expert's turn")
        trial.deleted = watch.stop()
        trial.reads, trial.problems = readers.runs, list(readers.failures)
        trial.shown = shown
        stored = {(o, j, s, t) for o, j, s, t, _ in sequences(db, 1)}
        trial.lost = sum(m not in stored for m in expected_app_messages(shown))
        trial.integrity = integrity(db)
        if review:
            _review_shows_interrupted(tmux, trial)
        if query(db, "SELECT status FROM runs WHERE id = 1") != [("done",)]:
            tmux.start("again", [str(PXP), "run", "--resume", "1", "--db", str(db)])
            answer_until_finished(tmux, "again", limit)
            tmux.keys("again", "q")
            if tmux.exit_code("again") != 0:
                trial.problems.append("the resumed app did not exit cleanly")
        wrong = complete(db, 1)
        if [(o, j, s, t) for o, j, s, t, _ in sequences(db, 1)] != expected_app_messages(3 * limit):
            wrong.append("the resumed run's messages are not those of a run ratified at every turn")
        if wrong:
            trial.resumed = False
            trial.problems += wrong
    finally:
        tmux.close()
    return trial


def _review_shows_interrupted(tmux: Tmux, trial: Trial) -> None:
    """``pxp review``, open all along, shows the killed run as interrupted once refreshed (r), not as being written."""
    tmux.keys("review", "r")
    try:
        screen = tmux.wait("review", r"interrupted", 15)
    except AssertionError:
        trial.problems.append("the review does not show the killed run as interrupted")
        return
    if "being written" in screen:
        trial.problems.append("the review says a killed run is being written")


def run_trial(scenario: str, folder: Path, seed: int, **options: object) -> Trial:
    if scenario == "app":
        return app_trial(folder, seed, **options)  # type: ignore[arg-type]
    return headless_trial(folder, seed, repeat=3 if scenario == "repeat" else 1, **options)  # type: ignore[arg-type]
