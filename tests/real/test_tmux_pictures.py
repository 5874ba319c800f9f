"""Inside tmux: what tmux says of the terminal around it decides whether kitty's pictures pass through, and
where they cannot the picture's header names what would let them."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from pxp_tui.app.picture import graphics
from pxp_tui.app.picture.tmux import AroundTmux, around_tmux, kitty_fix, kitty_missing, through_tmux

TMUX = {"TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.3a"}
READY = {**TMUX, "COLORTERM": "truecolor"}


@pytest.mark.parametrize(
    ("terminal", "kitty"),
    [("kitty(0.35.2)", True), ("kitty(0.28.0)", True), ("kitty(0.26.5)", False), ("WezTerm 20240203", False), ("", False)],
)
def test_only_a_kitty_that_draws_placeholders_is_sent_kitty_s_pictures(terminal: str, kitty: bool) -> None:
    assert AroundTmux(terminal, True, True).kitty is kitty


def test_each_missing_setting_is_named_as_the_line_that_fixes_it() -> None:
    assert kitty_missing(AroundTmux("kitty(0.35.2)", True, True), READY) == []
    assert AroundTmux("kitty(0.35.2)", True, True).passes_kitty(READY)
    assert not AroundTmux("kitty(0.35.2)", True, True).passes_kitty(TMUX)  # no 24-bit colour where pxp runs
    assert not AroundTmux("kitty(0.26.5)", True, True).passes_kitty(READY)
    missing = kitty_missing(AroundTmux("kitty(0.35.2)", False, False), TMUX)
    assert missing == [
        "set -g allow-passthrough on",
        "set -as terminal-features ',xterm-kitty:RGB'",
        "export COLORTERM=truecolor",
    ]
    assert kitty_fix(missing) == (
        "in tmux.conf set -g allow-passthrough on; set -as terminal-features ',xterm-kitty:RGB', "
        "and where pxp runs export COLORTERM=truecolor"
    )
    assert kitty_missing(AroundTmux("kitty(0.35.2)", True, True), {**TMUX, "TEXTUAL_COLOR_SYSTEM": "truecolor"}) == []
    forced = {**READY, "TEXTUAL_COLOR_SYSTEM": "256"}  # Textual told to write 256 colours: the number would be lost
    assert kitty_missing(AroundTmux("kitty(0.35.2)", True, True), forced) == ["export COLORTERM=truecolor"]


def test_a_message_is_wrapped_for_tmux_with_every_escape_doubled() -> None:
    message = "\x1b_Ga=p,i=7,U=1\x1b\\"
    assert through_tmux(message) == "\x1bPtmux;\x1b\x1b_Ga=p,i=7,U=1\x1b\x1b\\\x1b\\"


def test_around_kitty_without_passthrough_the_note_says_what_to_set(monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "auto")
    monkeypatch.setattr(graphics, "drawn_by", lambda: "halfcell")
    note = graphics.coarse_note(READY, around=AroundTmux("kitty(0.35.2)", False, True))
    assert note is not None and note.startswith("tmux 3.3a passes no pictures through as set up: half-cell blocks")
    assert "For kitty 0.35.2's pixels, in tmux.conf set -g allow-passthrough on, then restart pxp" in note
    assert "v opens the original" in note and "pxp serve" in note
    # around another terminal: what tmux cannot pass, and what gives pixels
    note = graphics.coarse_note(READY, around=AroundTmux("XTerm(379)", False, False))
    assert note is not None and note.startswith("tmux 3.3a passes no pictures through: the X-ray is in half-cell blocks")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_tmux_is_asked_for_its_pane_s_settings(tmp_path: Path) -> None:
    """The real tmux, a detached session (no terminal around it): passthrough as set, no terminal named."""
    socket = f"pxp-test-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-s", "s", "sleep 60"], check=True)
    try:
        subprocess.run([*tmux, "set", "-g", "allow-passthrough", "on"], check=True)
        path, pane = (
            subprocess.run(
                [*tmux, "display-message", "-p", "-t", "s", "#{socket_path}\t#{pane_id}"],
                capture_output=True,
                text=True,
                check=True,
            )
            .stdout.strip()
            .split("\t")
        )
        found = around_tmux({"TMUX": f"{path},1,0", "TMUX_PANE": pane})
        assert found == AroundTmux("", True, False)
        subprocess.run([*tmux, "set", "-g", "allow-passthrough", "off"], check=True)
        assert around_tmux({"TMUX": f"{path},1,0", "TMUX_PANE": pane}) == AroundTmux("", False, False)
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
    assert around_tmux({}) is None  # outside tmux: nothing asked


def test_what_tmux_says_of_itself_is_shown_as_text(monkeypatch) -> None:
    """The note quotes tmux's version and the terminal's name: markup stays as typed, escapes are shown, not sent."""
    from pxp_tui.app.picture.instance_info import graphics_note

    class Task:
        def original_picture(self, instance: object) -> bytes:
            return b"an X-ray"

    monkeypatch.setenv("PXP_IMAGES", "auto")
    monkeypatch.setattr(graphics, "drawn_by", lambda: "halfcell")
    monkeypatch.setattr(graphics, "_around", None)
    for name, value in {**TMUX, "TERM_PROGRAM_VERSION": "3.3[bold]a\x1b]0;PWNED\x07"}.items():
        monkeypatch.setenv(name, value)
    note = graphics_note(Task(), object())
    assert note is not None and "tmux 3.3[bold]a" in note.plain
    assert "\x1b" not in note.plain and "\x07" not in note.plain and not note.spans
    assert AroundTmux("kitty(0.35\x1b]0;PWNED\x07)").kitty is False  # not read as kitty's version
