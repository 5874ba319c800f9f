"""The real ``pxp`` in a real terminal: a private tmux server, and the processes running in its panes."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from pxp_harness.waiting import PATIENCE, poll

ROOT = Path(__file__).resolve().parent.parent
PXP = Path(sys.executable).with_name("pxp")
#: seconds between two keys sent to a pane: a terminal reads escape followed at once by a key as alt+key
KEY_GAP = 0.05


def needs_tmux(test):
    """Skip ``test`` where tmux or the installed ``pxp`` command is missing."""
    import pytest

    return pytest.mark.skipif(shutil.which("tmux") is None or not PXP.exists(), reason="needs tmux and the pxp command")(test)


def installed_tmux() -> str | None:
    """The version of the tmux installed here (``3.3a``), or None without one."""
    if shutil.which("tmux") is None:
        return None
    return subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=False).stdout.split()[-1]


def pxp_env(home: Path) -> dict[str, str]:
    """A clean environment for the real ``pxp`` in a terminal: the offline model at once, no network."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "PXP_OFFLINE_LATENCY": "0",
        "PXP_FULL_SCREEN": "never",  # as in every test (conftest): a small X-ray stays in its pane unless asked
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT),  # the package, installed or not
    }


class Tmux:
    """A private tmux server (its own socket), so that the user's sessions are never touched."""

    def __init__(self, tmp_path: Path, env: dict[str, str] | None = None):
        self.socket = f"pxp-test-{uuid.uuid4().hex[:8]}"
        self.tmp_path = tmp_path
        self.env = env or {}
        # read when the server starts: a pane whose command ended keeps its last screen (what pxp printed as it
        # ended, an error included) until the test closes it, so that a test that fails can show it
        self.config = tmp_path / f"{self.socket}.conf"
        self.config.write_text("set-option -g remain-on-exit on\n")

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """tmux ``args`` on this server (started with its configuration, if not running)."""
        command = ["tmux", "-L", self.socket, "-f", str(self.config), *args]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    def tmux(self, *args: str) -> str:
        return self.run(*args).stdout

    def start(self, name: str, command: list[str], size: tuple[int, int] = (160, 48), pane_env: tuple[str, ...] = ()) -> None:
        """Run ``command`` in a new session ``name``, in a clean environment but for ``TMUX`` (plus ``pane_env``:
        more variables kept from the pane's own, as tmux sets them: ``TERM_PROGRAM``...)."""
        env = {**pxp_env(self.tmp_path), **self.env}
        exports = " ".join([*(f"{k}={shlex.quote(v)}" for k, v in env.items()), *(f'{k}="${k}"' for k in pane_env)])
        rc = self.rc(name)
        shell = (
            f'cd {shlex.quote(str(self.tmp_path))} && env -i TMUX="$TMUX" {exports} {shlex.join(command)}; '
            f"echo $? > {shlex.quote(str(rc))}"
        )
        self.tmux("kill-session", "-t", f"={name}")  # one of that name whose command ended (its pane kept)
        rc.unlink(missing_ok=True)
        made = self.run("new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]), shell)
        assert made.returncode == 0, f"tmux could not make pane {name} (exit code {made.returncode}): {made.stderr.strip()}"

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def title(self, name: str) -> str:
        """The pane's title: what OSC 0 and OSC 2 sequences written to the terminal set."""
        return self.tmux("display-message", "-p", "-t", name, "#{pane_title}").strip()

    def keys(self, name: str, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", name, key)
            time.sleep(KEY_GAP)

    def wait(self, name: str, pattern: str, patience: float = PATIENCE, step: float = 0.1) -> str:
        """The pane's screen once ``pattern`` is on it (looked at every ``step`` seconds)."""

        def seen() -> str | None:
            text = self.screen(name)
            return text if re.search(pattern, text) else None

        try:
            return poll(seen, pattern, patience, step)
        except AssertionError:
            ended = self.ended(name)
            # the pane kept once its command ended: what it printed last may have scrolled into its history
            screen = self.tmux("capture-pane", "-p", "-S", "-", "-t", name) if ended else self.screen(name)
            # the first line is what a run's short summary shows: the screen's last words are in it
            glimpse = " | ".join(line.strip() for line in screen.splitlines() if line.strip())[-400:]
            threads = "" if ended else self.stacks(name)
            raise AssertionError(
                f"never saw {pattern!r}{ended}; the screen ended: {glimpse}\nthe screen was:\n{screen}{threads}"
            ) from None

    def stacks(self, name: str) -> str:
        """What each thread of the pane's ``pxp`` process is doing now (``py-spy dump``), for a test that waited in
        vain for a screen: a process that waits on a lock or a thread says which here."""
        pids = self.pxp_pids(name)
        spy = Path(sys.executable).with_name("py-spy")
        if not pids or not spy.exists():
            return ""
        try:
            done = subprocess.run(
                [str(spy), "dump", "--pid", str(pids[0])], capture_output=True, text=True, timeout=60, check=False
            )
        except subprocess.TimeoutExpired:
            return "\npy-spy dump of the pxp process took over 60 s"
        return f"\nthe pxp process's threads (py-spy dump):\n{(done.stdout or done.stderr).strip()[-6000:]}"

    def ended(self, name: str) -> str:
        """``" (the command in pane NAME had ended: exit code N)"``, once the pane's command has ended; else ``""``."""
        try:
            code = self.rc(name).read_text().strip()
        except OSError:
            return ""
        return f" (the command in pane {name} had ended: exit code {code})"

    def rc(self, name: str) -> Path:
        """The file the shell of pane ``name`` writes its command's exit code into as it ends."""
        return self.tmp_path / f"{name}.rc"

    def exit_code(self, name: str) -> int:
        rc = self.rc(name)
        poll(rc.exists, f"the end of the command in pane {name}")
        return int(rc.read_text().strip())

    def pxp_pids(self, name: str) -> list[int]:
        """The ``pxp`` processes running in pane ``name`` (none once its command ended, or without such a pane)."""
        pane = self.tmux("list-panes", "-t", name, "-F", "#{pane_pid}").strip()
        return [p for p in children(int(pane)) if "pxp" in cmdline(p)] if pane.isdigit() else []

    def pxp_pid(self, name: str) -> int:
        """The pid of the ``pxp`` process running in pane ``name``."""
        found = self.pxp_pids(name)
        assert found, f"no pxp process in pane {name}"
        return found[0]

    def kill_session(self, name: str) -> None:
        """Close the pane's terminal, as closing a terminal window or an ssh connection does."""
        self.tmux("kill-session", "-t", name)

    def close(self) -> None:
        self.tmux("kill-server")
        # tmux (3.3) leaves its socket file behind, whether killed or ended with its last session
        Path(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)


def expert_turn(tmux: Tmux, name: str, session: int, total: int) -> str:
    """Wait for the expert's turn at message 2 of session ``session``: everything before it is on screen.

    Past the previous session's outcome (the expert reads it and presses enter), if it is shown.
    """
    turn = rf"session {session} of {total} · message 2 of 10(?s:.*)Your turn"
    text = tmux.wait(name, rf"{turn}|enter: the next instance")
    if not re.search(turn, text):
        tmux.keys(name, "Enter")
        text = tmux.wait(name, turn)
    return text


def run_finished(tmux: Tmux, name: str) -> str:
    """Past the last session's outcome to the run's summary screen."""
    tmux.wait(name, "enter: the run's summary")
    tmux.keys(name, "Enter")
    return tmux.wait(name, "The run is finished")


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout.split()
    found = [int(p) for p in out]
    return found + [g for c in found for g in children(c)]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def gone(pid: int, patience: float = PATIENCE) -> bool:
    """Wait until process ``pid`` has ended (or is a zombie); False if it is still running after ``patience``."""

    def ended() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        return state in ("Z", "X")

    try:
        return poll(ended, f"process {pid} to end", patience)
    except AssertionError:
        return False
