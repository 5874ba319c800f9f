"""Terminal graphics through textual-image: which renderer, and asking the terminal before Textual starts.

textual-image asks the terminal what it supports (Sixel, the kitty graphics protocol, the cell size
in pixels) when it is imported, and cannot once Textual reads the keyboard; importing it also imports
numpy and Pillow, about 75 ms before the first frame. So :func:`probe` asks the terminal textual-image's
questions in a thread while the app's modules load, with textual-image's own light reader, and keeps
the answers; :func:`load` imports textual-image later (after the first paint) with those answers
replayed to it: its own choice of renderer, made without asking the terminal again. :func:`image_class`
picks the widget. ``PXP_IMAGES`` chooses the renderer: ``auto`` (default: Sixel or kitty where the
terminal has them, half-cell blocks otherwise, including inside tmux; in a browser tab, Sixel where the
page's terminal draws it, as ``pxp serve``'s does), ``sixel``, ``tgp``, ``halfcell``, ``unicode``, or ``none``.
"""

from __future__ import annotations

import codecs
import fcntl
import logging
import os
import re
import select
import struct
import sys
import termios
import threading
from typing import Any

from pxp_tui.app.picture import textual_image_internals as internals
from pxp_tui.app.picture.tmux import (
    KITTY_PLACEHOLDERS,
    AroundTmux,
    around_tmux,
    kitty_fix,
    kitty_missing,
    kitty_version,
    through_tmux,
    tmux_version,
    version_tuple,
)
from pxp_tui.app.shared import typed_ahead
from pxp_tui.app.shared.browser import in_browser
from pxp_tui.tasks.pictures import Surface

RENDERERS = ("auto", "sixel", "tgp", "halfcell", "unicode", "none")

#: the questions textual-image (0.12) asks when imported: Device Attributes (DA1; Sixel is attribute 4),
#: then, without Sixel, a kitty graphics query; each as (question, answer's start, answer's end)
DA1 = ("\x1b[c", "\x1b[?", "c")
KITTY = ("\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\", "\x1b_G", "\x1b\\")
#: the terminal's name and version (XTVERSION), asked of a terminal with kitty graphics and no Sixel
VERSION = ("\x1b[>0q", "\x1bP>|", "\x1b\\")
#: the cell's size in pixels (its answer ``ESC [ 6 ; height ; width t``), asked where the terminal's size does not tell
#: it; the answer's start is the one textual-image asks for it with
CELL = ("\x1b[16t", "\x1b[", "t")
#: kitty's answer to its graphics query: what a kitty around tmux would answer, replayed to textual-image
KITTY_OK = "\x1b_Gi=31;OK\x1b\\"
#: seconds for an answer. textual-image waits 0.1 s; a terminal over ssh, or still starting (pxp its command), answers
#: later, and a late answer reaches the app as keys (kitty's "Gi=31;OK" typed "1" and "?", choosing a tag and opening
#: the keys). DA1, which every terminal answers, is asked last: the wait ends at its answer, at once in a terminal at
#: hand; only a terminal that never answers waits it out, once, before the first frame
WAIT = 3.0
#: seconds the app waits for the questions at most (each answer's wait, and some to spare)
LIMIT = 4 * WAIT + 1.0

#: the terminal's answers by their start, or the error textual-image's reader raised instead (no answer
#: in time, something else); None until :func:`probe` has asked
_answers: dict[str, str | type[Exception]] | None = None
#: kitty's version where it has kitty graphics but too old to draw textual-image's pictures (``0.26.5``), else None
_old_kitty: str | None = None
#: what tmux says of the terminal around it, when pxp runs inside tmux and tmux answers, else None
_around: AroundTmux | None = None
_loading = threading.Lock()


# textual-image logs a warning with a traceback when the terminal does not tell its cell size (it then assumes
# VT340 cells); with no handler, Python prints it on the terminal, where it stays after the app. A handler of
# nothing keeps it off the terminal, and lets a program that sets up logging still receive it.
logging.getLogger("textual_image").addHandler(logging.NullHandler())


def page_has_sixel(env: dict[str, str] | None = None) -> bool:
    """Whether the browser page's terminal draws Sixel: its answer to DA1, asked by ``pxp serve`` before the tab's
    app started (``app/shell/page_terminal.py``), lists attribute 4."""
    attributes = (os.environ if env is None else env).get("PXP_PAGE_ATTRIBUTES", "")
    return "4" in attributes.split(";")


def renderer() -> str:
    """``PXP_IMAGES``'s renderer; ``auto`` in a browser tab is Sixel where the page's terminal said it draws it
    (pxp's page does), else half-cell blocks (its output is a pipe, where textual-image would fall back to its
    coarser unicode one). The cell's size in pixels comes from the page too (textual-image reads it)."""
    value = os.environ.get("PXP_IMAGES", "auto").strip().lower() or "auto"
    value = value if value in RENDERERS else "auto"
    if value == "auto" and in_browser():
        return "sixel" if page_has_sixel() else "halfcell"
    return value


def probe() -> threading.Thread | None:
    """Ask the terminal about graphics in a thread; join it before the app starts. None if no terminal.

    From here on the terminal reads keys as the app will (no echo, no line editing: ``app/shared/typed_ahead.py``),
    and the keys typed while the terminal is asked are kept for the app, not taken for its answers.
    """
    if renderer() == "none" or sys.__stdout__ is None or not sys.__stdout__.isatty() or sys.__stdin__ is None:
        return None
    if not typed_ahead.hold(sys.__stdin__.fileno()):
        return None
    internals.load_reader()  # imported here: the thread only waits for answers

    thread = threading.Thread(target=_ask_terminal, name="pxp-terminal-probe", daemon=True)
    thread.start()
    return thread


def multiplexed() -> bool:
    """Inside tmux or GNU screen: both take kitty's question (an APC string) as the window's new title, and
    pass no kitty graphics on unwrapped, so it is not asked there (tmux is asked instead: :func:`around_tmux`)."""
    return bool(os.environ.get("TMUX") or os.environ.get("STY"))


def _ask_terminal() -> None:
    """The questions in one go, kitty's first (kitty's own way to detect its graphics), DA1 last: a terminal
    answers in order, so DA1's answer with no kitty answer before it means "no kitty graphics" at once, where
    textual-image, asking kitty's question alone, waits 0.1 s for an answer that never comes (xterm,
    most terminals). A Sixel terminal is asked kitty's question too (a query: it draws nothing); inside tmux
    or screen kitty's is not asked (:func:`multiplexed`); inside tmux, tmux is asked what terminal is around it,
    and kitty's pictures pass through to a kitty there with nothing missing (:mod:`~pxp_tui.app.picture.tmux`).
    The cell's size in pixels is asked too where the terminal's size does not say it (textual-image would ask
    it later, reading the keyboard itself). Keys typed meanwhile are kept for the app (:func:`_read_answer`)."""
    global _answers, _old_kitty, _around

    answers: dict[str, str | type[Exception]] = {}
    stdin = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
    try:
        if sys.__stdout__ is None:
            raise TimeoutError("no terminal")
        asked = ([] if multiplexed() else [KITTY]) + ([] if _pixels_known() else [CELL]) + [DA1]
        sys.__stdout__.write("".join(question for question, _, _ in asked))
        sys.__stdout__.flush()
        while True:
            answer = _read_answer(stdin)
            answers[_kind(answer)[1]] = answer
            if _kind(answer) is DA1:
                break
        if KITTY[1] in answers and not has_sixel(str(answers[DA1[1]])):
            _old_kitty = _too_old_kitty(stdin)
            if _old_kitty is not None:
                del answers[KITTY[1]]  # its graphics not used: half-cell blocks, and the header says why
    except (TimeoutError, OSError) as exc:
        answers.setdefault(DA1[1], type(exc))
    _around = around_tmux()
    da1 = answers[DA1[1]]
    if _around is not None and _around.passes_kitty() and not (isinstance(da1, str) and has_sixel(da1)):
        answers[KITTY[1]] = KITTY_OK  # as the kitty around tmux answers: textual-image draws kitty pictures
    answers.setdefault(KITTY[1], TimeoutError)  # not answered before DA1's answer: never
    _answers = answers
    with internals.answers_replayed(_replayed):
        internals.cell_size()  # kept by textual-image: its widgets read it when imported


def has_sixel(da1: str) -> bool:
    """Whether DA1's answer (``\\x1b[?62;4;6c``) lists Sixel (attribute 4)."""
    return "4" in da1.removeprefix(DA1[1]).removesuffix(DA1[2]).split(";")


def _pixels_known() -> bool:
    """Whether the terminal's size, as the kernel has it, gives its pixels (what textual-image reads first)."""
    try:
        size = fcntl.ioctl(sys.__stdout__.fileno() if sys.__stdout__ else -1, termios.TIOCGWINSZ, b"\0" * 8)
        rows, columns, width, height = struct.unpack("HHHH", size)
    except (OSError, ValueError):
        return False
    return bool(rows and columns and width // columns and height // rows)


def _too_old_kitty(stdin: int) -> str | None:
    """Ask the terminal's name and version (DA1 after it, so that a terminal that does not answer costs no wait):
    kitty's version if it is kitty older than :data:`KITTY_PLACEHOLDERS`, else None."""
    assert sys.__stdout__ is not None
    sys.__stdout__.write(VERSION[0] + DA1[0])
    sys.__stdout__.flush()
    answer = _read_answer(stdin)
    if _kind(answer) is not VERSION:
        return None
    _read_answer(stdin)  # DA1's
    return old_kitty(answer[len(VERSION[1]) : -len(VERSION[2])])


def old_kitty(name: str) -> str | None:
    """The version in ``name`` (XTVERSION's answer: ``kitty(0.26.5)``) if it is kitty older than
    :data:`KITTY_PLACEHOLDERS`, else None."""
    version = kitty_version(name)
    if version is not None and version < KITTY_PLACEHOLDERS:
        return name.strip()[len("kitty(") : -1]
    return None


#: the answers' forms: (question, answer's start, answer's end) and what may come between, a pattern
ANSWERS = ((KITTY, ".*"), (VERSION, ".*"), (DA1, "[0-9;]*"), (CELL, "[0-9;]*"))


def _kind(sequence: str) -> tuple[str, str, str]:
    """Which question ``sequence`` (a whole answer: :func:`_whole`) answers."""
    return next(kind for kind, _ in ANSWERS if _whole(sequence, kind))


def _whole(sequence: str, kind: tuple[str, str, str]) -> bool:
    _, start, end = kind
    body = dict(ANSWERS)[kind]
    inner = sequence[len(start) : len(sequence) - len(end)]
    return (
        sequence.startswith(start)
        and sequence.endswith(end)
        and len(sequence) > len(start)
        and bool(re.fullmatch(body, inner, re.S))
    )


def _may_become(sequence: str) -> bool:
    """Whether more characters could make ``sequence`` an answer (or it is one)."""
    for (_, start, end), body in ANSWERS:
        if start.startswith(sequence):
            return True
        if sequence.startswith(start):
            inner = sequence[len(start) :]
            for cut in range(len(end)):  # the end's first characters may have come already
                if inner.endswith(end[:cut]) and re.fullmatch(body, inner[: len(inner) - cut], re.S):
                    return True
            if _whole(sequence, (_, start, end)):
                return True
    return False


def _read_answer(stdin: int) -> str:
    """The terminal's next answer (kitty's, DA1's, XTVERSION's or the cell size's); TimeoutError if none comes within
    :data:`WAIT` seconds (read when called: a test may change it). Whatever else comes first is keys typed meanwhile:
    kept, in order, for the app (``app/shared/typed_ahead.py``), never taken for an answer nor dropped."""
    sequence, decode = "", codecs.getincrementaldecoder("utf-8")(errors="replace").decode
    try:
        while True:
            if not select.select([stdin], [], [], WAIT)[0]:
                raise TimeoutError("no answer from the terminal")
            byte = os.read(stdin, 1)
            if not byte:
                raise TimeoutError("the terminal's input has closed")
            sequence += decode(byte)
            while sequence and not _may_become(sequence):
                typed_ahead.keep(sequence[0])  # a key, not an answer's start: the app's
                sequence = sequence[1:]
            if sequence and any(_whole(sequence, kind) for kind, _ in ANSWERS):
                return sequence
    except TimeoutError:
        typed_ahead.keep(sequence)  # the start of an answer that never came: a key (escape)
        raise


def _replayed(start_marker: str) -> str | type[Exception]:
    """The terminal's answer to the question that starts with ``start_marker``, from :func:`probe`'s record."""
    return (_answers or {}).get(start_marker, TimeoutError)


def load() -> None:
    """Import textual-image's widgets once (after the first paint), its questions answered from the probe; where
    nothing was asked (``PXP_IMAGES=none``), answered "no answer": never asked of the terminal once the app reads the
    keyboard, where the answer (``\\x1b[?1;2c``) came as keys (``?`` opened the keys' list by itself)."""
    with _loading:
        if "textual_image.renderable" not in sys.modules:
            with internals.answers_replayed(_replayed):
                import textual_image.renderable  # chooses the renderer from the answers
        import textual_image.widget  # noqa: F401

        if os.environ.get("TMUX"):
            internals.kitty_messages_wrapped(through_tmux)  # kitty's pictures, if drawn, pass through tmux


def image_class() -> type[Any] | None:
    """The textual-image widget class for ``PXP_IMAGES``, or None when pictures are off."""
    choice = renderer()
    if choice == "none":
        return None
    load()
    import textual_image.widget as widgets

    from pxp_tui.app.picture.sixel import SixelPicture

    if choice == "auto" and widgets.Image is widgets.SixelImage:
        return SixelPicture  # the terminal has Sixel: textual-image's widget, its colours defined first
    return {
        "auto": widgets.Image,
        "sixel": SixelPicture,
        "tgp": widgets.TGPImage,
        "halfcell": widgets.HalfcellImage,
        "unicode": widgets.UnicodeImage,
    }[choice]


def drawn_by() -> str:
    """The renderer pictures are drawn by: ``PXP_IMAGES``, or for ``auto`` what the terminal was found to support."""
    choice = renderer()
    if choice != "auto":
        return choice
    load()
    import textual_image.renderable as renderables

    return {
        renderables.SixelImage: "sixel",
        renderables.TGPImage: "tgp",
        renderables.HalfcellImage: "halfcell",
        renderables.UnicodeImage: "unicode",
    }.get(renderables.Image, "halfcell")


#: what the expert can do instead of half-cell blocks
OPTIONS = "v opens the original, pxp serve shows pxp in a browser"


def coarse_note(env: dict[str, str] | None = None, kitty: str | None = None, around: AroundTmux | None = None) -> str | None:
    """What the expert is told, once, where an X-ray can only be drawn in half-cell blocks (the terminal has no
    Sixel and no kitty graphics, kitty is too old for textual-image's pictures, or tmux passes them not): why, and
    what shows pixels. None where pixels are drawn, or where half-cell blocks were chosen (``PXP_IMAGES``).
    ``env``, ``kitty`` (the too old kitty's version) and ``around`` (what tmux says of the terminal around it) are
    the probe's findings unless given."""
    if renderer() != "auto" or drawn_by() not in ("halfcell", "unicode"):
        return None
    version = tmux_version(env)
    kitty = _old_kitty if kitty is None else kitty
    if version is None and kitty:
        return (
            f"kitty {kitty} cannot show pxp's pictures (they need kitty 0.28+): the X-ray is in half-cell blocks. For "
            f"pixels: kitty 0.28 or later, or a terminal with Sixel (xterm -ti vt340, WezTerm, foot); {OPTIONS}."
        )
    if version is None:
        return (
            "This terminal shows no pictures (no Sixel, no kitty graphics): the X-ray is in half-cell blocks. For pixels: "
            f"a terminal with Sixel (xterm -ti vt340, WezTerm, foot, iTerm2) or kitty; {OPTIONS}."
        )
    named = f"tmux {version}".strip()
    around = _around if around is None else around
    if around is not None and around.kitty:
        name = around.terminal.replace("(", " ").rstrip(")")
        return (
            f"{named} passes no pictures through as set up: half-cell blocks. For {name}'s pixels, "
            f"{kitty_fix(kitty_missing(around, env))}, then restart pxp. Or {OPTIONS}."
        )
    if version and version_tuple(version) < (3, 4):
        why = f"{named} passes no pictures through: the X-ray is in half-cell blocks"
    else:
        why = f"{named} passes no pictures through (built without Sixel, or the terminal around it has none): half-cell blocks"
    return f"{why}. For pixels: a Sixel or kitty terminal outside tmux (or tmux 3.4+ built with Sixel); {OPTIONS}."


def surface(cols: int, rows: int) -> Surface:
    """``cols`` x ``rows`` cells as a surface to draw on, in the pixels the chosen renderer shows there.

    Half-cell blocks (and the unicode fallback) show two pixels per cell; Sixel and kitty graphics the
    terminal's cell size, as the start-up probe found it (a VT340's 10 x 20 without a terminal).
    """
    kind = drawn_by()
    if kind in ("halfcell", "unicode", "none"):
        return Surface(cols, rows, (cols, rows * 2), kind)
    cell = internals.cell_size()
    return Surface(cols, rows, (cols * cell.width, rows * cell.height), kind)
