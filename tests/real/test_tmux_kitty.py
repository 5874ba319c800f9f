"""kitty's pictures through the real tmux: the real ``pxp`` in a tmux attached to a terminal that says it is kitty.

The terminal around tmux is this test: a pseudo-terminal that answers tmux's question of its name and version
(XTVERSION) as kitty 0.35 does and records every byte tmux writes to it, which is what a kitty would draw. With
``allow-passthrough`` on, kitty's graphics messages must reach it unwrapped, with the picture's data (a PNG
that decodes) and a placement by Unicode placeholders, and tmux's pane must hold those placeholders in the
picture's cells, coloured with its number. Without it, the picture's header must name the line that is missing.
(Whether kitty then draws the pixels is kitty's part: Debian's kitty, 0.26, predates the placeholders.)
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import io
import os
import pty
import re
import select
import shlex
import struct
import subprocess
import termios
import threading
import uuid
from pathlib import Path

import pytest
from PIL import Image

from pxp_harness.terminal import PXP, installed_tmux, pxp_env
from pxp_harness.waiting import poll
from pxp_tui.app.picture.tmux import version_tuple

pytestmark = pytest.mark.slow

PLACEHOLDER = "\U0010eeee"
#: kitty's graphics messages, as the terminal around tmux receives them: their keys, then their data
KITTY_MESSAGE = re.compile(rb"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")


VERSION = version_tuple(installed) if (installed := installed_tmux()) is not None else None
needs_tmux_passthrough = pytest.mark.skipif(
    VERSION is None or VERSION < (3, 3) or not PXP.exists(),
    reason="needs tmux 3.3+ (allow-passthrough) and the pxp command",
)


class KittyAroundTmux:
    """tmux, on a private socket, attached to a pseudo-terminal that answers as kitty and keeps what it is sent."""

    def __init__(self, tmp_path: Path, config: str, command: list[str]) -> None:
        self.socket = f"pxp-kitty-{uuid.uuid4().hex[:8]}"
        (tmp_path / "tmux.conf").write_text(config, encoding="utf-8")
        env = {
            **pxp_env(tmp_path),
            "LANG": "C.UTF-8",  # tmux writes characters outside ASCII only to a UTF-8 terminal
            "COLORTERM": "truecolor",  # as kitty sets it (panes inherit it)
        }
        tmux = ["tmux", "-L", self.socket, "-f", str(tmp_path / "tmux.conf"), "new-session", "-x", "160", "-y", "48"]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: tmux's client, in the pseudo-terminal
            os.chdir(tmp_path)
            os.execvpe("tmux", [*tmux, *command], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 160 * 10, 48 * 20))
        self.received = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        answered = False
        while True:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.received += data
                if not answered and b"\x1b[>q" in self.received:  # tmux asks the terminal's name and version
                    os.write(self.fd, b"\x1bP>|kitty(0.35.2)\x1b\\")
                    answered = True

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False).stdout

    def wait(self, pattern: str) -> str:
        shown = [""]

        def seen() -> str | None:
            shown[0] = screen = self.tmux("capture-pane", "-p")
            return screen if re.search(pattern, screen) else None

        return poll(seen, lambda: f"{pattern}; the pane showed:\n{shown[0]}")  # a wait in vain says what was there

    def sent(self) -> bytes:
        with self._lock:
            return bytes(self.received)

    def close(self) -> None:
        self.tmux("kill-server")
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def rad_run(tmp_path: Path) -> list[str]:
    """The RAD run, started once tmux knows the terminal around it (its answer to XTVERSION): a kitty answers
    within milliseconds, before pxp asks tmux, but the pseudo-kitty here answers from a thread of the test's busy
    process, and pxp asking before the answer arrived is told of no terminal around tmux."""
    run = [str(PXP), "run", "--task", "rad", "--human", "live", "--limit", "1", "--db", str(tmp_path / "sessions.db")]
    known = "until tmux display-message -p '#{client_termtype}' | grep -q .; do sleep 0.05; done"
    return ["sh", "-c", f"{known}; exec {shlex.join(run)}"]


@needs_tmux_passthrough
def test_with_passthrough_kitty_s_pictures_reach_the_kitty_around_tmux(tmp_path: Path) -> None:
    config = "set -g allow-passthrough on\nset -as terminal-features ',xterm-256color:RGB'\n"
    terminal = KittyAroundTmux(tmp_path, config, rad_run(tmp_path))
    try:
        screen = terminal.wait(r"Your turn")
        assert "passes no pictures" not in screen  # pixels: no note

        def placed() -> tuple[dict[str, str], bytes] | None:
            """The last placement kitty was sent, and the picture's data sent before it."""
            data: dict[str, list[bytes]] = {}
            placement = None
            for keys, payload in KITTY_MESSAGE.findall(terminal.sent()):
                fields = dict(field.split("=", 1) for field in keys.decode().split(","))
                if fields.get("a") == "p":
                    placement = (fields, b"".join(data.get(fields["i"], [])))
                elif "a" not in fields:  # a transmission, in chunks
                    data.setdefault(fields["i"], []).append(payload)
            return placement

        fields, data = poll(placed, "a picture placed by Unicode placeholders")
        assert b"\x1bPtmux;" not in terminal.sent()  # tmux unwrapped what passed through
        assert fields["U"] == "1"  # a virtual placement: the cells that show it are placeholders
        with Image.open(io.BytesIO(base64.b64decode(data))) as picture:
            assert picture.format == "PNG" and min(picture.size) > 100  # the X-ray's pixels, not a thumbnail

        # tmux's pane holds the placeholders: the placement's columns and rows, coloured with the picture's number
        # (once the app has drawn for the frame's last size: a first placement can be for a frame a row shorter)
        def settled() -> tuple[dict[str, str], str, list[str]] | None:
            found = placed()
            pane = terminal.tmux("capture-pane", "-p", "-e")
            rows = [line for line in pane.splitlines() if PLACEHOLDER in line]
            return (found[0], pane, rows) if found and len(rows) == int(found[0]["r"]) else None

        fields, pane, rows = poll(settled, "the placement's rows on tmux's pane")
        number = int(fields["i"])
        colour = f"38;2;{(number >> 16) & 255};{(number >> 8) & 255};{number & 255}"
        assert all(line.count(PLACEHOLDER) == int(fields["c"]) for line in rows)
        assert colour in pane
    finally:
        terminal.close()


@needs_tmux_passthrough
def test_without_passthrough_the_header_names_the_line_that_is_missing(tmp_path: Path) -> None:
    config = "set -as terminal-features ',xterm-256color:RGB'\n"  # allow-passthrough: tmux's default, off
    terminal = KittyAroundTmux(tmp_path, config, rad_run(tmp_path))
    try:
        screen = terminal.wait(r"Your turn")
        # the picture's pane, left of the others (as wide as the machine's pane under it): the note wraps in it
        width = next(line.index("╮") + 1 for line in screen.splitlines() if "─ Machine ─" in line)
        flat = " ".join(" ".join(line[:width] for line in screen.splitlines()).split())
        assert "passes no pictures through as set up" in flat
        assert "kitty 0.35.2's pixels" in flat and "set -g allow-passthrough on" in flat
        assert "terminal-features" not in flat  # what is there is not asked for
        assert PLACEHOLDER not in screen and not KITTY_MESSAGE.search(terminal.sent())  # half-cell blocks, nothing sent
    finally:
        terminal.close()
