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

ROOT = Path(__file__).resolve().parent.parent
PXP = Path(sys.executable).with_name("pxp")
PATIENCE = 60.0  # a bound against hanging, not a timing assertion


def needs_tmux(test):
    """Skip ``test`` where tmux or the installed ``pxp`` command is missing."""
    import pytest

    return pytest.mark.skipif(shutil.which("tmux") is None or not PXP.exists(), reason="needs tmux and the pxp command")(test)


class Tmux:
    """A private tmux server (its own socket), so that the user's sessions are never touched."""

    def __init__(self, tmp_path: Path, env: dict[str, str] | None = None):
        self.socket = f"pxp-test-{uuid.uuid4().hex[:8]}"
        self.tmp_path = tmp_path
        self.env = env or {}

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False).stdout

    def start(self, name: str, command: list[str], pane_env: tuple[str, ...] = ()) -> None:
        """Run ``command`` in a new session ``name``, in a clean environment (plus ``pane_env``: variables kept from
        the pane's own, as tmux sets them: ``TMUX``, ``TERM_PROGRAM``...)."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.tmp_path),
            "TERM": "xterm-256color",
            "PXP_OFFLINE_LATENCY": "0",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": str(ROOT),  # the package, installed or not
            **self.env,
        }
        exports = " ".join([*(f"{k}={shlex.quote(v)}" for k, v in env.items()), *(f'{k}="${k}"' for k in pane_env)])
        rc = self.tmp_path / f"{name}.rc"
        shell = (
            f"cd {shlex.quote(str(self.tmp_path))} && env -i {exports} {shlex.join(command)}; echo $? > {shlex.quote(str(rc))}"
        )
        self.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "48", shell)

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", name, key)
            time.sleep(0.05)

    def wait(self, name: str, pattern: str, patience: float = PATIENCE) -> str:
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            text = self.screen(name)
            if re.search(pattern, text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {pattern!r}; the screen was:\n{self.screen(name)}")

    def exit_code(self, name: str) -> int:
        rc = self.tmp_path / f"{name}.rc"
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and not rc.exists():
            time.sleep(0.1)
        return int(rc.read_text().strip())

    def pane_pid(self, name: str) -> int:
        return int(self.tmux("list-panes", "-t", name, "-F", "#{pane_pid}").strip())

    def pxp_pid(self, name: str) -> int:
        """The pid of the ``pxp`` process running in pane ``name``."""
        found = [p for p in children(self.pane_pid(name)) if "pxp" in cmdline(p)]
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

    Past the previous session's outcome (the expert reads it and presses n), if it is shown.
    """
    turn = rf"session {session} / {total} · message 2 / 10(?s:.*)Your turn"
    text = tmux.wait(name, rf"{turn}|or n: the next instance")
    if not re.search(turn, text):
        tmux.keys(name, "n")
        text = tmux.wait(name, turn)
    return text


def run_finished(tmux: Tmux, name: str) -> str:
    """Past the last session's outcome to the run's summary screen."""
    tmux.wait(name, "or n: the run's summary")
    tmux.keys(name, "n")
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
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False
