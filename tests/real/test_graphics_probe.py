"""The terminal is asked about graphics once, before the app starts, and pictures are drawn as textual-image
itself would choose for that terminal; importing textual-image later asks the terminal nothing."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from ..conftest import ROOT

DA1 = b"\x1b[c"
VERSION = b"\x1b[>0q"
CELL = b"\x1b[16t"
#: kitty's graphics query, DA1, XTVERSION or the cell's size in pixels
QUESTION = re.compile(rb"\x1b_G([^;\x1b]*);AAAA\x1b\\|\x1b\[c|\x1b\[>0q|\x1b\[16t")
DONE = b"#probed"

#: what each kind of terminal answers: Device Attributes (4 is Sixel), the kitty graphics query, and XTVERSION
TERMINALS = {
    "xterm": {"da1": b"\x1b[?64;1;2;6;9;15;18;21;22c", "kitty": False, "version": b"XTerm(379)"},
    "sixel": {"da1": b"\x1b[?64;1;2;4;6;9;15;18;21;22c", "kitty": False, "version": None},
    "kitty": {"da1": b"\x1b[?62;c", "kitty": True, "version": b"kitty(0.35.2)"},
    "old kitty": {"da1": b"\x1b[?62;c", "kitty": True, "version": b"kitty(0.26.5)"},  # Debian 12's
    "kitty graphics, no name": {"da1": b"\x1b[?62;c", "kitty": True, "version": None},
    "silent": {"da1": None, "kitty": False, "version": None},
}
#: what pxp draws with in each, and what it asks (kitty's graphics query and DA1; then, of a terminal with kitty
#: graphics and no Sixel, its name and version with DA1 again, so that a terminal that does not say costs no wait)
DRAWN = {"xterm": "halfcell", "sixel": "sixel", "kitty": "tgp", "old kitty": "halfcell"}
DRAWN |= {"kitty graphics, no name": "tgp", "silent": "halfcell"}
ASKED = {name: [b"kitty", DA1, VERSION, DA1] if answers["kitty"] else [b"kitty", DA1] for name, answers in TERMINALS.items()}

#: pxp's way: the probe while its modules load, then textual-image imported once the app has the keyboard
PXP = f"""
import sys
import termios
from pxp_tui.app.picture import graphics
graphics.probe().join(graphics.LIMIT)
heavy = sorted(m for m in ("numpy", "PIL.Image", "textual_image.renderable") if m in sys.modules)
sys.__stdout__.write("{DONE.decode()}\\n"); sys.__stdout__.flush()
print("#heavy-before-the-app", heavy, flush=True)
print("#drawn-by", graphics.drawn_by(), graphics.surface(10, 5).pixels, flush=True)
"""

#: textual-image's own way: it asks when imported
OWN = """
import textual_image.renderable as r
kind = {r.SixelImage: "sixel", r.TGPImage: "tgp", r.HalfcellImage: "halfcell", r.UnicodeImage: "unicode"}[r.Image]
print("#drawn-by", kind, flush=True)
"""


def in_terminal(
    script: str, answers: dict, *, pixels: bool = True, env: dict | None = None, late: float = 0.0, typed: bytes = b""
) -> tuple[str, list[bytes]]:
    """Run ``script`` in a pseudo-terminal that answers as ``answers`` says until the script prints #probed
    (then, as under Textual, nothing more answers); what it printed, and every question it asked, in order.
    ``pixels=False``: the terminal gives its size in cells only (mosh, a serial line), and never answers the
    question of its cell size either. ``env``: more of the script's environment (TMUX, STY: in a multiplexer).
    ``late``: seconds before the first answers (a terminal over ssh, or one still starting); ``typed``: keys the user
    types then, before the answers come."""
    pid, fd = pty.fork()
    if pid == 0:  # 80 x 24 cells of 8 x 16 pixels
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 80 * 8 if pixels else 0, 24 * 16 if pixels else 0))
        for multiplexer in ("TMUX", "STY"):  # the pseudo-terminal is not inside the one the tests may run in
            os.environ.pop(multiplexer, None)
        os.environ.update({"PYTHONPATH": str(ROOT), "PXP_IMAGES": "auto", "TERM": "xterm-256color", **(env or {})})
        os.execv(sys.executable, [sys.executable, "-c", script])
    seen, asked, answering = b"", [], True
    deadline = time.monotonic() + 60  # a bound against hanging
    try:
        while time.monotonic() < deadline:
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if late and QUESTION.search(chunk):
                if typed:
                    os.write(fd, typed)
                time.sleep(late)
                late = 0.0
            for query in QUESTION.finditer(chunk):  # answered in the order asked, as terminals do
                if query.group(0) == DA1:
                    asked.append(DA1)
                    if answering and answers["da1"] is not None:
                        os.write(fd, answers["da1"])
                elif query.group(0) == CELL:
                    asked.append(CELL)
                    if answering and answers.get("cell") is not None:
                        os.write(fd, answers["cell"])
                elif query.group(0) == VERSION:
                    asked.append(VERSION)
                    if answering and answers["version"] is not None:
                        os.write(fd, b"\x1bP>|%s\x1b\\" % answers["version"])
                else:
                    asked.append(b"kitty")
                    if answering and answers["kitty"]:
                        image_id = re.search(rb"i=(\d+)", query.group(1))
                        os.write(fd, b"\x1b_Gi=%s;OK\x1b\\" % (image_id.group(1) if image_id else b"1"))
            if DONE in seen and answering:
                answering = False
                asked.append(DONE)
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    return text, asked


def drawn_by(output: str) -> str:
    found = re.search(r"#drawn-by (\w+)", output)
    assert found, output[-2000:]
    return found.group(1)


@pytest.mark.parametrize("terminal", sorted(TERMINALS))
def test_pictures_are_drawn_as_textual_image_would_choose_and_the_terminal_is_asked_once(terminal) -> None:
    theirs, _ = in_terminal(OWN, TERMINALS[terminal])
    ours, asked = in_terminal(PXP, TERMINALS[terminal])
    if terminal != "old kitty":  # textual-image would draw kitty's placeholders, which kitty 0.26 shows as boxes
        assert drawn_by(ours) == drawn_by(theirs)
    assert drawn_by(ours) == DRAWN[terminal]
    # asked before the app starts, each question once (kitty's, then DA1: the answers come in that order);
    # nothing once Textual would be reading the keyboard
    assert asked == [*ASKED[terminal], DONE]
    assert "#heavy-before-the-app []" in ours  # asking loads neither numpy, Pillow nor textual-image's renderers


#: the probe with an answer's wait of 30 s instead of 3 s: still running after 5 s means it waited for one
PATIENT = f"""
from pxp_tui.app.picture import graphics
graphics.WAIT = 30.0
probe = graphics.probe()
probe.join(5.0)
print("#still-asking", probe.is_alive(), flush=True)
sys.__stdout__.write("{DONE.decode()}\\n"); sys.__stdout__.flush()
"""


@pytest.mark.parametrize("terminal", ["xterm", "sixel", "kitty", "old kitty", "kitty graphics, no name"])
def test_a_terminal_that_answers_is_not_waited_for(terminal) -> None:
    """xterm and tmux ignore kitty's query: textual-image, asking it alone, waits 0.1 s for nothing before the
    first frame. Asked before DA1, whose answer comes at once, it is known unanswered at once."""
    ours, asked = in_terminal("import sys\n" + PATIENT, TERMINALS[terminal])
    assert "#still-asking False" in ours, ours[-2000:]
    assert asked == [*ASKED[terminal], DONE]


@pytest.mark.parametrize("multiplexer", ["TMUX", "STY"])
def test_inside_tmux_or_screen_kitty_s_question_is_not_asked(multiplexer: str) -> None:
    """tmux and GNU screen take kitty's question (an APC string) as the window's new title (tmux showed
    "Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA" in the status line), and pass no kitty graphics on: only DA1 is asked."""
    ours, asked = in_terminal(PXP, TERMINALS["xterm"], env={multiplexer: "/tmp/tmux-1000/default,4242,0"})
    assert asked == [DA1, DONE]
    assert drawn_by(ours) == "halfcell"


def test_sixel_pictures_are_drawn_in_the_terminal_s_own_cell_size() -> None:
    ours, _ = in_terminal(PXP, TERMINALS["sixel"])
    assert "#drawn-by sixel (80, 80)" in ours  # 10 x 5 cells of 8 x 16 pixels


def test_a_terminal_that_does_not_tell_its_cell_size_gets_no_traceback() -> None:
    """textual-image logs a warning with a traceback when the terminal does not tell its cell size in pixels;
    with no logging set up, Python wrote it on the terminal, where it stayed after the app quit."""
    ours, asked = in_terminal(PXP, TERMINALS["sixel"], pixels=False)
    assert "#drawn-by sixel (100, 100)" in ours, ours[-2000:]  # textual-image's default cells, 10 x 20 pixels
    assert "Traceback" not in ours and "cell size" not in ours, ours[-2000:]
    assert asked == [b"kitty", CELL, DA1, DONE]  # asked with the others: not read from the keyboard later


def test_a_terminal_that_tells_its_cell_size_only_when_asked_is_asked_with_the_others() -> None:
    ours, asked = in_terminal(PXP, {**TERMINALS["sixel"], "cell": b"\x1b[6;16;8t"}, pixels=False)
    assert "#drawn-by sixel (80, 80)" in ours, ours[-2000:]  # 10 x 5 cells of 8 x 16 pixels, as it said
    assert asked == [b"kitty", CELL, DA1, DONE]


def test_without_a_terminal_nothing_is_asked_and_pictures_are_drawn_as_text() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from pxp_tui.app.picture import graphics; print(graphics.probe(), graphics.drawn_by())"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PXP_IMAGES": "auto"},
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["None", "unicode"]


#: ``pxp review``, up to where its app would start: what it asked the terminal and imported by then
REVIEW = """
import sys
from pxp_tui.app.review.review_app import ReviewApp
from pxp_tui.blackboard import Blackboard

def run(self, *args, **kwargs):
    from pxp_tui.app.picture import graphics
    # numpy comes with the blackboard (sqlite-utils imports it), which the review opens first
    heavy = sorted(m for m in ("PIL.Image", "textual_image.renderable") if m in sys.modules)
    sys.__stdout__.write("#probed\\n"); sys.__stdout__.flush()
    print("#heavy-before-the-app", heavy, flush=True)
    print("#drawn-by", graphics.drawn_by(), flush=True)

ReviewApp.run = run
Blackboard.open(DB).close()
from pxp_tui.cli.main import main
main(["review", "--db", DB])
"""


@pytest.mark.parametrize("terminal", ["xterm", "sixel"])
def test_the_review_asks_the_terminal_as_the_app_does(tmp_path, terminal) -> None:
    """``pxp review`` used to import textual-image before its first frame (which asked the terminal, and loaded
    numpy and Pillow); it asks through the app's probe, and textual-image comes later, when a picture is drawn."""
    theirs, _ = in_terminal(OWN, TERMINALS[terminal])
    ours, asked = in_terminal(f"DB = {str(tmp_path / 'review.db')!r}\n" + REVIEW, TERMINALS[terminal])
    assert drawn_by(ours) == drawn_by(theirs)
    assert asked.count(DA1) == 1 and asked[-1] == DONE, asked
    assert "#heavy-before-the-app []" in ours, ours[-2000:]


#: pxp's way, then what reaches the keyboard once the app would read it (the terminal in raw mode, as under Textual)
KEYS_AFTER = f"""
import os, select, sys, time, tty
from pxp_tui.app.picture import graphics
graphics.probe().join(graphics.LIMIT)
print("#drawn-by", graphics.drawn_by(), flush=True)
tty.setraw(sys.stdin.fileno())
keys, end = b"", time.monotonic() + 1.5
while time.monotonic() < end:
    if select.select([sys.stdin.fileno()], [], [], 0.1)[0]:
        keys += os.read(sys.stdin.fileno(), 1024)
print("#keys", repr(keys), flush=True)
sys.__stdout__.write("{DONE.decode()}\\n"); sys.__stdout__.flush()
"""


@pytest.mark.parametrize("terminal", ["kitty", "old kitty", "sixel"])
def test_a_terminal_that_answers_late_is_waited_for_and_no_answer_reaches_the_app_as_keys(terminal) -> None:
    """A terminal over ssh, or still starting with pxp as its command, answers after textual-image's 0.1 s: its
    answers then reached the app as keys (kitty's "Gi=31;OK" chose tag 1 and "?" opened the keys, in kitty 0.26
    under load). pxp waits for DA1's answer, which every terminal gives, and draws as the terminal can."""
    ours, asked = in_terminal(KEYS_AFTER, TERMINALS[terminal], late=0.6)
    assert "#keys b''" in ours, ours[-2000:]
    assert drawn_by(ours) == DRAWN[terminal]
    assert asked == [*ASKED[terminal], DONE]


#: the size the terminal has, read as Textual's resize handler reads it, while textual-image asks its questions
SIZE_DURING_QUESTION = f"""
import os, shutil, sys
os.environ.pop("COLUMNS", None); os.environ.pop("LINES", None)
from pxp_tui.app.picture import graphics, textual_image_internals as internals
graphics.probe().join(graphics.LIMIT)
import textual_image._terminal as terminal
with internals.answers_replayed(lambda start: "\\\\x1b[?62;c"):
    with terminal.capture_terminal_response("\\\\x1b[?", "c", 0.1):
        sys.__stdout__.write("\\\\x1b[c")  # sent nowhere: asked before the app started
        size = shutil.get_terminal_size(fallback=(1, 1))
print("#size-during-question", size.columns, size.lines, flush=True)
sys.__stdout__.write("{DONE.decode()}\\\\n"); sys.__stdout__.flush()
"""


def test_the_terminal_s_size_is_read_right_while_textual_image_asks_its_questions() -> None:
    """textual-image is imported in a thread after the first frame, its questions answered from the probe; a resize
    then (kitty resizing its window as it starts) had Textual read the size from a stand-in with no terminal, and
    the app stayed at 80x24 in a 160x48 window until the next resize."""
    ours, asked = in_terminal(SIZE_DURING_QUESTION, TERMINALS["xterm"])
    assert "#size-during-question 80 24" in ours, ours[-2000:]
    assert asked == [*ASKED["xterm"], DONE]  # the question inside is sent nowhere


#: pictures off: nothing probed; then textual-image loaded after the first paint, as the app's preload does
PICTURES_OFF = f"""
import sys
from pxp_tui.app.picture import graphics
print("#probe", graphics.probe(), flush=True)
graphics.load()
print("#loaded", "textual_image.widget" in sys.modules, flush=True)
sys.__stdout__.write("{DONE.decode()}\\n"); sys.__stdout__.flush()
"""


def test_with_pictures_off_textual_image_asks_the_terminal_nothing_once_the_app_reads_the_keyboard() -> None:
    """With PXP_IMAGES=none nothing is probed, and textual-image, loaded after the first paint, asked DA1 itself: the
    answer, ``\\x1b[?1;2c``, reached the app as keys, and its ``?`` opened the keys' list as the session began."""
    ours, asked = in_terminal(PICTURES_OFF, TERMINALS["xterm"], env={"PXP_IMAGES": "none"})
    assert "#probe None" in ours and "#loaded True" in ours, ours[-2000:]
    assert asked == [DONE]


#: the probe, then what it kept for the app and what is left on the keyboard
TYPED_AHEAD = f"""
import os, select, sys, termios, time
from pxp_tui.app.picture import graphics
from pxp_tui.app.shared import typed_ahead
graphics.probe().join(graphics.LIMIT)
print("#drawn-by", graphics.drawn_by(), flush=True)
print("#kept", repr(typed_ahead.take()), flush=True)
print("#echo", bool(termios.tcgetattr(0)[3] & termios.ECHO), flush=True)  # what is typed is not echoed meanwhile
keys, end = b"", time.monotonic() + 1.0
while time.monotonic() < end:
    if select.select([0], [], [], 0.1)[0]:
        keys += os.read(0, 1024)
print("#left", repr(keys), flush=True)
sys.__stdout__.write("{DONE.decode()}\\n"); sys.__stdout__.flush()
"""


@pytest.mark.parametrize("terminal", ["kitty", "sixel", "xterm"])
def test_keys_typed_while_the_terminal_is_asked_are_kept_for_the_app_in_order(terminal) -> None:
    """The probe read a key typed before the terminal's answer as a bad answer and dropped it, and the answer then
    reached the app as keys (names stored as ``1¡``, a first tab lost)."""
    typed = "dr-smith o.k\x1b[Zé\t5"
    ours, asked = in_terminal(TYPED_AHEAD, TERMINALS[terminal], late=0.5, typed=typed.encode())
    assert f"#kept {typed!r}" in ours, ours[-2000:]
    assert "#echo False" in ours and "#left b''" in ours, ours[-2000:]
    assert drawn_by(ours) == DRAWN[terminal]
    assert asked == [*ASKED[terminal], DONE]
