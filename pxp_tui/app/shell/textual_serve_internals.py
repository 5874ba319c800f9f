"""The server's one door to textual-serve's private parts: every use of them is here, each saying what it relies on.

textual-serve runs each browser tab's app as a process and stops it by telling it to quit and reading its output to
the end, but does not wait for the process itself to end; pxp's server starts each tab's app itself (after the page's
terminal has answered) and hands the tab's websocket to the server's own loop. Each use is checked by a canary test
(``tests/app/test_internals.py``) that names textual-serve's release when one moves (``.ci/oldest.txt`` pins the
oldest).
"""

from __future__ import annotations

from asyncio.subprocess import Process
from typing import Any

from textual_serve.app_service import AppService


def app_process(service: AppService) -> Process | None:
    """The process of ``service``'s app, once started (else None).

    Relies on: ``AppService._process``, the ``asyncio`` process its ``start`` made.
    """
    process = getattr(service, "_process", None)
    return process if isinstance(process, Process) else None


async def process_messages(server: Any, websocket: Any, service: AppService) -> None:
    """The tab's messages passed between ``websocket`` and ``service``'s app until either ends, by ``server`` (a
    textual-serve ``Server``).

    Relies on: ``Server._process_messages(websocket, app_service)``, the server's loop over a tab's websocket.
    """
    await server._process_messages(websocket, service)
