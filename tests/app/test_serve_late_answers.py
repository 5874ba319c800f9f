"""A tab whose page answered ``pxp serve``'s questions after the server stopped waiting (a browser busy loading many
tabs): the late answers never reach the tab's app as keys. Read as keys, DA1's answer ``ESC [ ? 62 ; 4 c`` is a ``?``
and more: the app opened its help by itself, and the expert's next keys went to the help.

The real server in this process, its tab's real app (``pxp app``, Textual's web driver), a websocket client in the
page's place that answers only once the app runs; the screen read back by pyte.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pxp_harness.waiting import async_poll
from pxp_tui.app.shell import page_terminal, serve, textual_serve_internals

from .test_page_terminal import XTERM_JS

pytestmark = pytest.mark.slow

COLUMNS, ROWS = 120, 40


async def test_answers_after_the_wait_are_no_keys_the_app_opens_no_help_by_itself_and_the_next_key_is_obeyed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aiohttp
    import pyte
    from aiohttp import web

    monkeypatch.setattr(page_terminal, "WAIT", 0.05)  # the page's answers come after the server stopped waiting
    stopped: list[bool] = []
    stop = serve.PageAppService.stop

    async def stopped_and_said(service: serve.PageAppService) -> None:
        await stop(service)
        process = textual_serve_internals.app_process(service)  # (not kept: held here, it would outlive this loop)
        stopped.append(process is not None and process.returncode is not None)

    monkeypatch.setattr(serve.PageAppService, "stop", stopped_and_said)
    server = serve.PXPServer(tmp_path / "sessions.db", host="127.0.0.1", port=0)
    runner = web.AppRunner(await server.application(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, server.socket).start()
    screen = pyte.Screen(COLUMNS, ROWS)
    stream = pyte.ByteStream(screen)
    asked: list[bytes] = []

    def shown() -> str:
        return "\n".join(screen.display)

    async def read(websocket: aiohttp.ClientWebSocketResponse) -> None:
        async for message in websocket:
            if message.type == aiohttp.WSMsgType.BINARY:
                if not asked:
                    asked.append(message.data)  # the questions: left unanswered for now
                else:
                    stream.feed(message.data)

    try:
        async with aiohttp.ClientSession() as session, session.ws_connect(f"{server.url}ws") as websocket:
            reader = asyncio.create_task(read(websocket))
            await websocket.send_str(json.dumps(["resize", {"width": COLUMNS, "height": ROWS}]))
            await async_poll(lambda: "Task" in shown(), "the start form")
            assert asked == [page_terminal.QUESTIONS.encode()]
            await websocket.send_str(json.dumps(["stdin", XTERM_JS[:9]]))  # the late answers, split over two messages
            await websocket.send_str(json.dumps(["stdin", XTERM_JS[9:] + "\x1bo"]))  # then alt+o: review the runs
            await async_poll(lambda: "PXP review" in shown() or "Keys (" in shown(), "the runs to review")
            assert "Keys (" not in shown(), shown()  # no help opened by itself
            await websocket.close()
            await reader
            await async_poll(lambda: stopped, "the tab's app to stop once its tab closed")
            assert stopped == [True]  # its process ended and reaped, before the server's loop goes on
    finally:
        await runner.cleanup()
