"""What ``pxp serve`` asks the page's terminal before a tab's app starts, and what the app makes of the answers.

The page's terminal (xterm.js with its image addon) answers DA1 with Sixel (attribute 4) and ``CSI 16 t`` with its
cell's size; the app is told in its environment and draws Sixel there; anything else the page sent meanwhile (its
size, keys typed early) reaches the app. The browser tests (tests/real/test_browser_pixels.py) show the pixels.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from aiohttp import WSMsgType

from pxp_tui.app.picture import graphics
from pxp_tui.app.shell import page_terminal
from pxp_tui.app.shell.page_terminal import PageTerminal, app_environment, ask, read_answers

#: what xterm.js with its image addon answers (the cell size of Roboto Mono at 16 px, then DA1)
XTERM_JS = "\x1b[6;19;9t\x1b[?62;4;9;22c"


def test_the_page_s_answers_become_the_app_s_environment() -> None:
    page = PageTerminal()
    assert read_answers(page, XTERM_JS)
    assert page.sixel and page.cell == (9, 19) and page.typed == ""
    assert app_environment(page) == {"PXP_PAGE_ATTRIBUTES": "62;4;9;22", "TEXTUAL_CELL_WIDTH": "9", "TEXTUAL_CELL_HEIGHT": "19"}


def test_keys_typed_around_the_answers_are_kept_in_order_and_a_terminal_without_sixel_is_said() -> None:
    page = PageTerminal()
    assert read_answers(page, "a\x1b[6;19;9tb\x1b[?1;2cc")  # textual-serve's page: xterm.js without the image addon
    assert page.typed == "abc"
    assert not page.sixel
    assert app_environment(page)["PXP_PAGE_ATTRIBUTES"] == "1;2"


def test_no_answer_tells_the_app_nothing_and_an_absurd_cell_is_not_passed_on() -> None:
    page = PageTerminal()
    assert not read_answers(page, "hello")
    assert page.typed == "hello" and app_environment(page) == {}
    page = PageTerminal()
    read_answers(page, "\x1b[6;0;9t\x1b[?62;4c")
    assert app_environment(page) == {"PXP_PAGE_ATTRIBUTES": "62;4"}


def test_answers_that_come_after_the_wait_are_taken_out_of_the_keys_even_split_and_keys_are_left_whole() -> None:
    page = PageTerminal()  # the wait is over: no answer came
    sent = ["a\x1b[6;19;9", "tb\x1b[?62;", "4;9;22cc"]  # the late answers, split over three messages, keys around them
    assert "".join(page_terminal.after_start(page, text) for text in sent) == "abc"
    assert page.sixel  # (the app was started without it: too late)
    # once DA1 has answered, nothing more is taken, whatever it looks like
    assert page_terminal.after_start(page, "\x1b[?1;2c") == "\x1b[?1;2c"


@pytest.mark.parametrize(
    "keys",
    ["?", "\x1b", "\x1b[", "\x1b[6~", "\x1b[6;5~", "\x1b[1;5A", "\x1b[<0;3;4M", "\x1bo", "6;19;9t"],
)
def test_keys_typed_while_the_answers_are_awaited_reach_the_app_at_once_and_whole(keys: str) -> None:
    page = PageTerminal()  # no answer came in the wait: the page's answers may still come, yet no key is held back
    assert page_terminal.after_start(page, keys) == keys
    assert page.held == ""


class FakeWebsocket:
    """A tab's websocket, prepared: what the page sends, in order (then nothing, or a close)."""

    def __init__(self, *sent: object, close: bool = False) -> None:
        self.sent = [SimpleNamespace(type=WSMsgType.TEXT, data=json.dumps(message)) for message in sent]
        if close:
            self.sent.append(SimpleNamespace(type=WSMsgType.CLOSE, data=None))
        self.received: list[object] = []

    async def send_bytes(self, data: bytes) -> None:
        self.received.append(data)

    async def send_json(self, data: object) -> None:
        self.received.append(data)

    async def receive(self, timeout: float) -> object:
        if self.sent:
            return self.sent.pop(0)
        raise asyncio.TimeoutError  # as aiohttp's receive once ``timeout`` passes


async def test_the_server_asks_the_page_and_keeps_what_else_it_sends() -> None:
    websocket = FakeWebsocket(
        ["resize", {"width": 140, "height": 41}],
        ["ping", "17"],
        ["stdin", XTERM_JS[:7]],  # an answer split over two messages
        ["stdin", XTERM_JS[7:] + "q"],
        ["focus"],
    )
    page = await ask(websocket)  # type: ignore[arg-type]
    assert websocket.received == [page_terminal.QUESTIONS.encode(), ["pong", "17"]]
    assert page.sixel and page.cell == (9, 19) and page.size == (140, 41)
    assert page.typed == "q"  # DA1's answer ended the questions: the focus is left for the app
    assert not page.closed


async def test_a_page_that_never_answers_starts_its_app_without_pictures_and_a_closed_one_not_at_all() -> None:
    page = await ask(FakeWebsocket(["resize", {"width": 80, "height": 24}]), wait=0.01)  # type: ignore[arg-type]
    assert page.attributes is None and page.size == (80, 24) and not page.closed
    page = await ask(FakeWebsocket(close=True))  # type: ignore[arg-type]
    assert page.closed


@pytest.mark.parametrize(
    ("environment", "drawn"),
    [
        ({"PXP_PAGE_ATTRIBUTES": "62;4;9;22"}, "sixel"),  # pxp serve's page
        ({"PXP_PAGE_ATTRIBUTES": "1;2"}, "halfcell"),  # a terminal without Sixel
        ({}, "halfcell"),  # no answer
        ({"PXP_PAGE_ATTRIBUTES": "62;4;9;22", "PXP_IMAGES": "halfcell"}, "halfcell"),  # the expert's choice first
    ],
)
def test_in_a_browser_tab_the_app_draws_sixel_where_the_page_said_it_does(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], drawn: str
) -> None:
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    monkeypatch.delenv("PXP_IMAGES", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert graphics.renderer() == drawn
    assert graphics.drawn_by() == drawn
