"""What the page's terminal draws, asked before a browser tab's app starts (``pxp serve``).

A terminal app learns what its terminal draws by asking it (``app/picture/graphics.py``): Device Attributes
(DA1; Sixel is attribute 4) and the cell's size in pixels (``CSI 16 t``). In a browser tab the app reads its
keyboard through Textual's web driver, whose parser takes such answers for keys; so the server asks the page's
terminal instead, on the tab's websocket, before it starts the tab's app, and hands the answers to the app in
its environment (:func:`app_environment`): ``PXP_PAGE_ATTRIBUTES`` (DA1's attributes, digits and ``;``) and
textual-image's own ``TEXTUAL_CELL_WIDTH`` / ``TEXTUAL_CELL_HEIGHT``. The page pxp serves (xterm.js with its
image addon) answers Sixel and its cell size; a terminal that answers neither gets half-cell blocks.

Whatever else the page sends meanwhile is kept: its size (``resize``), focus, and keys typed before the app
started, handed to the app once it runs. An answer that comes after the wait (a browser busy loading many tabs) is
taken out of what the page sends the running app (:func:`after_start`): read as keys, DA1's answer ``ESC [ ? 62 ;
4 c`` is a ``?`` and more, and the app would open its help by itself.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass

from aiohttp import WSMsgType, web

#: the questions, the cell size first: a terminal answers in order, and every terminal answers DA1, so its
#: answer ends the wait
QUESTIONS = "\x1b[16t\x1b[c"
DA1 = re.compile(r"\x1b\[\?([0-9;]{1,64})c")
CELL = re.compile(r"\x1b\[6;(\d{1,4});(\d{1,4})t")
#: the start of an answer at the end of what the page sent (its rest comes in the page's next message); no key
#: the expert types begins so
PARTIAL = re.compile(r"\x1b\[(\?[0-9;]{0,64}|6;[0-9;]{0,9})$")
#: seconds to wait for the answers: pxp serve's page answers at once, or as soon as a browser busy loading many tabs
#: gets to it; a page that never does starts its app without pictures
WAIT = 30.0


@dataclass
class PageTerminal:
    """The page's answers, and what else it sent while asked."""

    attributes: str | None = None  # DA1's attributes (``62;4;9;22``), or None: no answer
    cell: tuple[int, int] | None = None  # the cell's width and height in pixels, or None: no answer
    size: tuple[int, int] | None = None  # the terminal's last size in cells, if it said
    typed: str = ""  # what the terminal sent that was no answer (keys typed early), in order
    focus: str | None = None  # "focus" or "blur", the last said
    closed: bool = False  # the page went away meanwhile
    held: str = ""  # the start of a late answer, its rest awaited (:func:`after_start`)

    @property
    def sixel(self) -> bool:
        return self.attributes is not None and "4" in self.attributes.split(";")


def app_environment(page: PageTerminal) -> dict[str, str]:
    """The variables that tell the tab's app what its terminal draws (read by ``app/picture/graphics.py``)."""
    environment: dict[str, str] = {}
    if page.attributes is not None:
        environment["PXP_PAGE_ATTRIBUTES"] = page.attributes
    if page.cell is not None and all(0 < n < 1000 for n in page.cell):
        environment["TEXTUAL_CELL_WIDTH"], environment["TEXTUAL_CELL_HEIGHT"] = (str(n) for n in page.cell)
    return environment


def _take(page: PageTerminal, text: str) -> str:
    """Take the answers out of ``text`` into ``page``; the rest."""
    cell = CELL.search(text)
    if cell is not None:
        page.cell = (int(cell[2]), int(cell[1]))
        text = text[: cell.start()] + text[cell.end() :]
    da1 = DA1.search(text)
    if da1 is not None:
        page.attributes = da1[1]
        text = text[: da1.start()] + text[da1.end() :]
    return text


def read_answers(page: PageTerminal, text: str) -> bool:
    """Take the answers out of ``text`` (what the terminal sent) into ``page``, the rest into ``page.typed``;
    whether DA1's answer has come."""
    page.typed += _take(page, text)
    return page.attributes is not None


def after_start(page: PageTerminal, text: str) -> str:
    """What the page sent its running app (``text``), less the answers that came after :func:`ask` stopped waiting,
    an answer split over two messages included; once DA1 has answered, ``text`` as it is."""
    if page.attributes is not None:
        return text
    text, page.held = page.held + text, ""
    rest = _take(page, text)
    partial = PARTIAL.search(rest) if page.attributes is None else None
    if partial is not None:
        rest, page.held = rest[: partial.start()], partial[0]
    return rest


async def ask(websocket: web.WebSocketResponse, wait: float | None = None) -> PageTerminal:
    """Ask the page's terminal on ``websocket`` (prepared, the app not started) what it draws (see the module),
    waiting ``wait`` seconds at most (:data:`WAIT`)."""
    wait = WAIT if wait is None else wait
    page = PageTerminal()
    await websocket.send_bytes(QUESTIONS.encode())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    sent = ""
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        try:
            message = await websocket.receive(timeout=remaining)
        except asyncio.TimeoutError:
            break
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            page.closed = True
            break
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
            kind = envelope[0]
        except (ValueError, LookupError, TypeError):
            continue
        if kind == "stdin" and isinstance(envelope[1], str):
            sent += envelope[1]
            if DA1.search(sent):
                break
        elif kind == "resize":
            try:
                page.size = (int(envelope[1]["width"]), int(envelope[1]["height"]))
            except (LookupError, TypeError, ValueError):
                continue
        elif kind in ("focus", "blur"):
            page.focus = kind
        elif kind == "ping" and len(envelope) > 1:
            await websocket.send_json(["pong", envelope[1]])
    read_answers(page, sent)
    return page
