"""The tmux mode of ``turn_latency.py``: the real ``pxp`` in a private tmux server, keys in, screen out.

The app runs in a child process (``turn_latency.py --child``) that installs the same probe as the
Pilot mode and writes what it recorded when the app exits, so that the times seen on the screen can
be broken down. The screen is read through a tmux control-mode client (one long-lived connection:
no process started per read) each time the app has written to it, and timed by when that output came
in (:class:`Control`); keys go through the same connection.
"""

from __future__ import annotations

import faulthandler
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

now = time.perf_counter
ROOT = Path(__file__).resolve().parent.parent
TMUX_CONF = "set -g status off\nset -g default-terminal tmux-256color\nset -sg escape-time 0\n"


class Control:
    """A tmux control-mode client: commands in, their output back, and the pane's output noticed as it comes.

    tmux tells a control client about the pane's output (``%output``) once it has read it into the pane's
    screen, and before its reply to any later command. So the time the last such notice arrived before a
    ``capture-pane``'s reply (:attr:`shown_at`) is when the screen it returns had come in, at the latest;
    and between reads the client waits for the next notice (:meth:`wait_output`) instead of asking tmux
    for the screen every few milliseconds.
    """

    def __init__(self, socket: str, target: str):
        self.proc = subprocess.Popen(
            ["tmux", "-L", socket, "-C", "attach", "-t", target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.target = target
        self.lines: list[bytes] = []  # read, not yet handled
        self.partial = b""
        self.output_at = now()  # when the last %output notice arrived
        self.shown_at = now()  # the screen the last command saw had come in by then
        self.command("display-message -p ready")

    def _line(self, timeout: float | None) -> bytes | None:
        """The next line from tmux (None if nothing comes within ``timeout``); a %output notice is timed."""
        while not self.lines:
            if timeout is not None and not select.select([self.fd], [], [], max(timeout, 0.0))[0]:
                return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise RuntimeError("the tmux control client closed")
            *complete, self.partial = (self.partial + chunk).split(b"\n")
            self.lines.extend(complete)
        line = self.lines.pop(0)
        if line.startswith(b"%output"):
            self.output_at = now()
        return line

    def command(self, line: str) -> list[str]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        out: list[str] = []
        inside = False
        while True:
            raw = self._line(None)
            assert raw is not None
            text = raw.decode("utf-8", "replace")
            if text.startswith("%begin"):
                inside, out = True, []
                self.shown_at = self.output_at
            elif inside and (text.startswith("%end") or text.startswith("%error")):
                return out
            elif inside:
                out.append(text)

    def wait_output(self, timeout: float) -> None:
        """Until the pane has written something since the last command's screen (or ``timeout``)."""
        deadline = now() + timeout
        while self.output_at <= self.shown_at:
            if self._line(deadline - now()) is None:
                return
        while self._line(0.0) is not None:  # the rest of what has come
            pass

    def screen(self) -> str:
        return "\n".join(self.command(f"capture-pane -p -t {self.target}"))

    def keys(self, *keys: str) -> None:
        self.command(f"send-keys -t {self.target} " + " ".join(shlex.quote(k) for k in keys))

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


@dataclass
class ScreenStep:
    """One step as the screen showed it: when the keys went, when the reply and the next turn appeared."""

    order: int
    j: int
    tag: str
    t0: float
    reply: float | None = None
    reply_superseded: bool = False  # the next session was on the screen before the reply was
    outcome: float | None = None  # the session's outcome visible (after its last answer)
    key: float | None = None  # n sent, to leave the outcome: the next turn's times count from here
    turn: float | None = None  # "Your turn" with the next message, pictures drawn or not
    ready: float | None = None
    seen: list[str] = field(default_factory=list)


def _turn(screen: str, session: int, total: int, j: int) -> bool:
    # "Your turn · message j of n" in the answer's pane; at narrow sizes the message number is in the header
    if re.search(rf"session {session} of {total}\b", screen) is None or "Your turn" not in screen:
        return False
    return f"Your turn · message {j} " in screen or re.search(rf"· message {j} of \d+", screen) is not None


def _ready(screen: str, session: int, total: int, j: int) -> bool:
    return _turn(screen, session, total, j) and "drawing…" not in screen


def drive(
    db: Path,
    run_id: int,
    size: tuple[int, int],
    sessions: int,
    total: int,
    answers: list[str],
    replies: list[bool],
    *,
    env: dict[str, str],
    think: float,
    events: Path,
    profile: Path | None,
    bare: bool = False,
    patience: float = 120.0,
) -> list[ScreenStep]:
    """Answer ``sessions`` sessions of run ``run_id`` in tmux, keys ``answers`` per session (``1``, ``2``...).

    ``replies`` says, for each answer, whether the machine replies to it (not when it ends the session).
    """
    socket = f"pxp-latency-{uuid.uuid4().hex[:8]}"
    conf = events.with_suffix(".tmux.conf")
    conf.write_text(TMUX_CONF)
    child = [
        sys.executable,
        str(Path(__file__).with_name("turn_latency.py")),
        "--child",
        "--db",
        str(db),
        "--run-id",
        str(run_id),
        "--events",
        str(events),
    ]
    if profile is not None:
        child += ["--child-profile", str(profile)]
    if bare:
        child.append("--bare")
    exports = {"PYTHONPATH": str(ROOT), "COLORTERM": "truecolor", "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env}
    shell = "env -u COLUMNS -u LINES " + " ".join(f"{k}={shlex.quote(v)}" for k, v in exports.items())
    shell += " " + shlex.join(child)  # Textual writes to stderr: it must stay the terminal
    tmux = ["tmux", "-L", socket, "-f", str(conf)]
    width, height = size
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), "-c", str(db.parent), shell], check=True
    )
    steps: list[ScreenStep] = []
    control = None
    try:
        subprocess.run([*tmux, "set-option", "-g", "window-size", "manual"], check=True)
        control = Control(socket, "app")
        for order in range(sessions):
            j = 2
            for position, key in enumerate(answers):
                _wait(control, lambda s, o=order, j=j: _ready(s, o + 1, total, j), patience, f"session {order + 1} message {j}")
                time.sleep(think)
                tag = {"1": "RATIFY", "2": "REFUTE"}[key]
                control.keys(key)
                _wait(control, lambda s, k=key, t=tag: f"● {k} {t}" in s, patience, f"{tag} chosen")
                step = ScreenStep(order, j, tag, now())
                control.keys("C-s")
                last = position == len(answers) - 1
                nxt_session, nxt_j = (order + 2, 2) if last else (order + 1, j + 2)
                reply = re.compile(rf"(RATIFY|REVISE|REFUTE|REJECT)\s+message {j + 1}\b")
                deadline = now() + patience
                moved_on = False
                while now() < deadline:
                    screen = control.screen()
                    t = control.shown_at  # that screen had come in by then
                    # a session's outcome stays until the expert moves on: this expert presses enter
                    if last and not moved_on and f"Session {order + 1} ended" in screen:
                        step.outcome = t
                        time.sleep(think)  # the expert reads the outcome, then moves on
                        step.key = now()
                        control.keys("Enter")
                        moved_on = True
                    if replies[position] and step.reply is None:
                        if reply.search(screen):
                            step.reply = t
                            step.seen.append(screen)
                        elif re.search(rf"session {order + 2} of {total}\b", screen):  # the next session
                            step.reply, step.reply_superseded = t, True
                    if step.turn is None and _turn(screen, nxt_session, total, nxt_j):
                        step.turn = t
                    if _ready(screen, nxt_session, total, nxt_j):
                        step.ready = t
                        break
                    control.wait_output(0.05)
                else:
                    raise RuntimeError(f"session {nxt_session} message {nxt_j} never came; the screen was:\n{control.screen()}")
                steps.append(step)
                j += 2
        control.keys("q")
        _wait(control, lambda s: "Quit anyway" in s or "(y)" in s, patience, "the quit question")
        control.keys("y")
        deadline = now() + patience
        while now() < deadline and not events.exists():
            time.sleep(0.05)
        time.sleep(0.2)  # the child writes the file, then exits
        if not events.exists():
            raise RuntimeError(f"the app wrote no measurements{_why(tmux, events, control)}")
    finally:
        if control is not None:
            control.close()
        subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)
        # tmux (3.3) leaves its socket file behind
        Path(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", socket).unlink(missing_ok=True)
    return steps


def _why(tmux: list[str], events: Path, control: Control) -> str:
    """What the app was doing when it did not end: its screen, and its threads' stacks (the child dumps them on
    SIGUSR1), for the error message."""
    stacks = events.with_suffix(".stacks")
    found = subprocess.run([*tmux, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True, check=False)
    for pid in found.stdout.split():
        try:
            os.kill(int(pid), signal.SIGUSR1)
        except (OSError, ValueError):
            continue
    time.sleep(1.0)
    dumped = (stacks.read_text(errors="replace") if stacks.exists() else "") or "(no stacks: the process is gone)"
    return f"; the screen was:\n{control.screen()}\nits threads:\n{dumped}"


def _wait(control: Control, condition: Any, patience: float, what: str) -> str:
    deadline = now() + patience
    while now() < deadline:
        screen = control.screen()
        if condition(screen):
            return screen
        control.wait_output(0.05)
    raise RuntimeError(f"gave up waiting for {what}; the screen was:\n{control.screen()}")


def child(db: Path, run_id: int, events: Path, profile: Path | None, bare: bool = False) -> None:
    """In tmux: the app on run ``run_id`` with the probe installed (unless ``bare``); what it recorded written at exit."""
    sys.path.insert(0, str(ROOT))
    from latency_probe import Probe, install

    # the threads' stacks on SIGUSR1, written beside the events: the driver asks for them if the app does not end
    faulthandler.register(signal.SIGUSR1, file=events.with_suffix(".stacks").open("w"), all_threads=True)
    probe = Probe() if bare else install(Probe())
    profiler: Any = None
    if profile is not None:
        from pyinstrument import Profiler

        profiler = Profiler(async_mode="disabled")

        def start(name: str, session: int, j: int) -> None:
            if name == "ready" and not profiler.is_running:
                profiler.start()

        probe.listeners.append(start)
        if bare:  # no stamps to start it: the whole process
            profiler.start()
    real_exit = os._exit

    def exit_after_saving(code: int) -> None:
        if profiler is not None and profiler.is_running:
            profiler.stop()
            profiler.last_session.save(str(profile))
        probe.dump(events)
        real_exit(code)

    os._exit = exit_after_saving  # the app leaves through os._exit (see pxp_tui.app.shell.launch)
    from pxp_tui.app.shell.launch import run_app

    run_app(db, run_id)
