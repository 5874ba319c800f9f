"""The real-terminal tests' X server and terminals (pxp_harness/xscreen.py): a server that keeps serving when its last
client leaves, and a terminal that cannot start saying why."""

from __future__ import annotations

import os
import subprocess

import pytest

from pxp_harness.xscreen import FONT, Terminal, XServer, displays, missing

pytestmark = pytest.mark.skipif(
    bool(missing("Xvfb", "xdpyinfo", "xprop", "xterm")), reason="needs Xvfb, xdpyinfo, xprop and xterm"
)


def xprop(server: XServer, *args: str) -> str:
    env = {**os.environ, **server.env()}
    return subprocess.run(["xprop", "-root", *args], capture_output=True, text=True, env=env, check=True).stdout


def test_the_x_server_is_not_reset_when_its_last_client_leaves() -> None:
    """An X server resets when its last client leaves, unless told not to, and closes a client still connecting
    then: xterm, started while xdotool's last search leaves, ended with "Can't open display"."""
    server = XServer().start()
    try:
        xprop(server, "-f", "PXP_MARK", "8s", "-set", "PXP_MARK", "kept")  # a client that sets a property and leaves
        assert xprop(server, "PXP_MARK").strip() == 'PXP_MARK(STRING) = "kept"'  # a reset would have dropped it
    finally:
        server.close()


def test_a_terminal_that_cannot_open_its_display_fails_saying_which_with_what_it_said() -> None:
    server = XServer()
    server.display = f":{displays().start + 50}"  # no server there
    with pytest.raises(AssertionError) as failure:
        Terminal(server, "xterm", ["true"], (80, 24), {})
    said = str(failure.value)
    assert "xterm ended before its window showed" in said
    assert f"xterm ended (exit code 1) on display {server.display}" in said
    assert f"font {FONT[0]} {FONT[1]}, 80x24 cells" in said
    assert "Can't open display" in said  # xterm's own words, from its stderr
