"""The real ``pxp serve`` in a real browser: headless Chromium driven by Playwright, the screen read back.

:class:`Served` runs ``pxp serve --port 0`` as a process and reads the address it prints. :class:`Tab` is one
browser tab on it, as one expert uses it: keys and clicks in, and the screen the tab received read back by a
terminal emulator of its own (pyte), fed the very bytes the page's terminal (xterm.js) draws: xterm.js draws
on a canvas, which holds no text to read. Waits are bounded loops on a condition, never a fixed time.

The browser is Debian's ``chromium`` (Playwright's own browser download cannot run everywhere): tests that
need it are skipped, with the reason, where it or Playwright is missing. Every request of the page to anything
but the server is refused: the tests reach no network.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pxp_harness import waiting
from pxp_harness.waiting import async_poll

ROOT = Path(__file__).resolve().parent.parent
PXP = Path(sys.executable).with_name("pxp")
#: Debian's Chromium, or $PXP_CHROMIUM
CHROMIUM = os.environ.get("PXP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
PATIENCE = waiting.PATIENCE  # a bound against hanging, not a timing assertion
#: a browser window of a common laptop size
VIEWPORT = {"width": 1280, "height": 800}


def why_no_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright  # noqa: F401
        import pyte  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    if not PXP.exists():
        return "the pxp command is not installed next to this Python"
    return None


needs_browser = pytest.mark.skipif(why_no_browser() is not None, reason=why_no_browser() or "")


#: the stderr files of the servers the running test started (emptied before each test by conftest.py)
SERVED_LOGS: list[Path] = []


class Served:
    """``pxp serve --port 0 --db DB`` as a real process; :attr:`url` is the address it printed."""

    def __init__(self, db: Path, home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "PXP_OFFLINE_LATENCY": "0",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PXP_FULL_SCREEN": "never",  # as in every test (conftest): a small X-ray stays in its pane unless asked
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        self.log = home / f"pxp-serve-{len(SERVED_LOGS)}.log"  # what it and its apps wrote on stderr
        SERVED_LOGS.append(self.log)  # shown beside a failed test's report (conftest.py)
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [str(PXP), "serve", "--port", "0", "--db", str(db), *args],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=environment,
                cwd=home,
                start_new_session=True,
            )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()  # the server prints its address once it listens
        found = re.search(r"at (https?://\S+)", first)
        if found is None:
            self.stop()
            raise AssertionError(f"pxp serve did not start: {first!r} {self.log.read_text(errors='replace')}")
        self.url = found[1]  # the address the browsers open
        behind = re.search(r"listening on (http://\S+)\)", first)
        self.listening = behind[1] if behind else self.url  # the address it listens on

    def stop(self) -> int:
        """Stop the server as ctrl+c does (every app it runs is told to quit); its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            return self.process.wait()


async def launch(playwright: Any) -> Any:
    """Headless Chromium (Debian's)."""
    return await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--disable-gpu"])


class WithoutPictures:
    """The bytes the page's terminal receives less its pictures (Sixel's device control strings, ``ESC P ... ESC \\``),
    which pyte would write as text; a picture may span frames."""

    def __init__(self) -> None:
        self.inside = False
        self.pending = b""  # a frame's last byte, when it is an ESC that may start or end a picture

    def feed(self, data: bytes) -> bytes:
        data, self.pending = self.pending + data, b""
        kept = bytearray()
        at = 0
        while at < len(data):
            if self.inside:
                end = data.find(b"\x1b\\", at)
                if end < 0:
                    self.pending = b"\x1b" if data.endswith(b"\x1b") else b""
                    return bytes(kept)
                self.inside, at = False, end + 2
                continue
            start = data.find(b"\x1bP", at)
            if start < 0:
                kept += data[at:]
                if kept.endswith(b"\x1b"):
                    self.pending, kept = b"\x1b", kept[:-1]
                return bytes(kept)
            kept += data[at:start]
            self.inside, at = True, start + 2
        return bytes(kept)


class Tab:
    """One browser tab on the server, as one expert uses it (see the module)."""

    def __init__(self, page: Any, server_url: str) -> None:
        self.page = page
        self.origin = server_url.rstrip("/")
        self.screen: Any = None
        self.stream: Any = None
        self._text = WithoutPictures()
        self.refused: list[str] = []  # requests to anything but the server, refused
        self.popups: list[Any] = []
        self.patience = PATIENCE  # how long a wait may last before the test fails (more for several tabs at once)

    @classmethod
    async def open(cls, context: Any, server_url: str) -> Tab:
        page = await context.new_page()
        tab = cls(page, server_url)
        page.on("websocket", tab._on_websocket)
        page.on("popup", lambda popup: tab.popups.append(popup))
        await context.route(re.compile(r".*"), tab._route)
        await page.goto(server_url)
        start = page.locator("#start")
        if await start.is_visible():  # a page that waits for a click to start the app
            await start.click()
        return tab

    async def _route(self, route: Any) -> None:
        if route.request.url.startswith(self.origin + "/"):
            await route.continue_()
        else:
            self.refused.append(route.request.url)
            await route.abort()

    def _on_websocket(self, websocket: Any) -> None:
        websocket.on("framesent", self._sent)
        websocket.on("framereceived", self._received)

    def _sent(self, payload: str | bytes) -> None:
        if not isinstance(payload, str):
            return
        message = json.loads(payload)
        if message[0] == "resize":
            import pyte

            width, height = message[1]["width"], message[1]["height"]
            if self.screen is None:
                self.screen = pyte.Screen(width, height)
                self.stream = pyte.ByteStream(self.screen)
            else:
                self.screen.resize(height, width)

    def _received(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes) and self.stream is not None:
            self.stream.feed(self._text.feed(payload))

    # -- reading ----------------------------------------------------------------------------------
    def text(self) -> str:
        """The screen as the tab shows it, one line per row."""
        return "\n".join(line.rstrip() for line in self.screen.display) if self.screen is not None else ""

    @property
    def size(self) -> tuple[int, int]:
        return (self.screen.columns, self.screen.lines) if self.screen is not None else (0, 0)

    async def _poll(self, condition: Callable[[], Any], what: str) -> Any:
        """:func:`~pxp_harness.waiting.async_poll` within this tab's patience (Playwright delivers the frames meanwhile);
        on giving up, the screen the tab showed."""
        try:
            return await async_poll(condition, what, self.patience)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the tab showed:\n{self.text()}") from None

    async def wait(self, pattern: str) -> str:
        """Wait until the screen matches ``pattern`` (a regular expression); the screen's text."""

        def seen() -> str:
            text = self.text()
            return text if re.search(pattern, text) else ""

        return await self._poll(seen, f"{pattern!r} on the screen")

    # -- keys and clicks --------------------------------------------------------------------------
    async def keys(self, *keys: str) -> None:
        """Press ``keys`` (Playwright's names: ``1``, ``Control+s``, ``Enter``) in the terminal."""
        for key in keys:
            await self.page.keyboard.press(key)

    async def select_all(self, text: str, below: int = 0) -> None:
        """Click the field ``below`` rows under ``text``, press ctrl+a, then wait until the field's second line shows
        the selection (keys typed at once could reach the field before the selection: they would be replaced with
        the rest). The second line: the click puts the cursor, and its line's highlight, on the first. Click and
        ctrl+a again while none shows: with four apps on two cores a click could be handled after the ctrl+a sent
        behind it, or land while the pane was still moving, and leave the focus elsewhere. The colours compared
        with are those before the first click: a later click that clears a selection is no selection."""
        bound = waiting.Patience(f"a selection in the field under {text!r}", self.patience)
        row, column = self._place(text)
        second = row + below + 1
        cells = range(column, column + len(text))  # the field's first cells (its padding may come first)
        before = self._colours(second, cells)
        while True:
            await self.click(text, below=below)
            await self.keys("Control+a")
            try:
                await async_poll(partial(self._changed, second, cells, before), "a selection", min(5.0, self.patience))
                return
            except AssertionError:
                try:
                    bound.give_up(False)
                except AssertionError as exc:
                    raise AssertionError(f"{exc}; the tab showed:\n{self.text()}") from None

    async def replace(self, label: str, text: str, below: int = 0) -> None:
        """Type ``text`` over the whole of the field ``below`` rows under ``label``, until the field shows exactly
        ``text``. A click or ctrl+a of :meth:`select_all` handled late, amid the typing, would leave only the rest:
        once the field ends with ``text``'s last word every key sent before has been handled, so the whole is then
        compared, and typed over again if it differs."""
        want = " ".join(text.split())
        end = want.split()[-1]
        bound = waiting.Patience(f"{want!r} in the field under {label!r}", self.patience)
        while True:
            await self.select_all(label, below)
            await self.type(text)
            typed = await self._poll(
                lambda: (field := self.field(label, below)).endswith(end) and field, f"{end!r} typed under {label!r}"
            )
            if typed == want:
                return
            bound.give_up(typed)

    def field(self, label: str, below: int = 0) -> str:
        """The text of the field ``below`` rows under ``label``, its wrapped lines joined by spaces: the cells from
        ``label``'s column to the pane's right border, row by row down to the field's first blank line."""
        row, column = self._place(label)
        lines = self.text().splitlines()[row + below :]
        words: list[str] = []
        for line in lines:
            border = line.find("│", column)
            part = line[column : border if border >= 0 else None].strip()
            if not part:
                break
            words.append(part)
        return " ".join(" ".join(words).split())

    def _colours(self, row: int, cells: range) -> set[str]:
        return {self.screen.buffer[row][c].bg for c in cells}

    def _changed(self, row: int, cells: range, before: set[str]) -> bool:
        return bool(self._colours(row, cells) - before)

    async def type(self, text: str) -> None:
        await self.page.keyboard.type(text)

    def _place(self, text: str, nth: int = 0) -> tuple[int, int]:
        """The row and column of the ``nth`` place where ``text`` is on the screen."""
        places = [
            (row, match.start())
            for row, line in enumerate(self.text().splitlines())
            for match in re.finditer(re.escape(text), line)
        ]
        assert len(places) > nth, f"{text!r} is not on the screen:\n{self.text()}"
        return places[nth]

    async def click(self, text: str, nth: int = 0, below: int = 0) -> None:
        """Click the middle of the ``nth`` place where ``text`` is on the screen (or ``below`` rows under it), as a mouse does."""
        row, column = self._place(text, nth)
        box = await self.page.locator(".xterm-screen").bounding_box()
        columns, rows = self.size
        x = box["x"] + (column + len(text) / 2) * box["width"] / columns
        y = box["y"] + (row + below + 0.5) * box["height"] / rows
        await self.page.mouse.click(x, y)

    async def new_tab(self) -> Any:
        """The next tab this one opened (``o``: the picture's original), once the browser has opened it."""
        await self._poll(lambda: self.popups, "a new tab")
        return self.popups.pop(0)

    async def screenshot(self, path: Path) -> None:
        await self.page.screenshot(path=str(path))


def db_rows(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows read as an outside reader reads the blackboard (its own connection, read-only)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute(sql, params).fetchall()


# -- what an expert does ----------------------------------------------------------------------------
TURN = r"session {session} of \d+ · message {j} of \d+(?s:.*)Your turn"
OUTCOME = r"enter: the next instance|enter: the run's summary"


async def start_rad_run(tab: Tab, dataset: str | None = None) -> str:
    """On the start screen: task RAD, ``dataset`` (else the bundled demo), start; the expert's first turn."""
    await tab.wait(r"Task\s+DRUG")
    await tab.click("DRUG")
    await tab.wait(r"RAD")
    await tab.click("RAD")
    await tab.wait(r"Task\s+RAD")
    if dataset is not None:
        await tab.keys("Tab", "Enter")  # the dataset's list (from the task's, which has the focus)
        await tab.wait(re.escape(dataset))
        await tab.click(dataset)
        await tab.wait(rf"Dataset\s+{re.escape(dataset)}")
    await tab.keys("Control+s")
    return await tab.wait(TURN.format(session=1, j=2))


async def refute(tab: Tab, prediction: str, explanation: str, tag: str = "2") -> str:
    """REFUTE (2; or ``tag``, 3 REVISE) with the expert's own label, clicked in the list, and explanation, typed
    over the machine's."""
    await tab.keys(tag)
    await tab.wait(rf"● {tag} RE")  # the tag chosen before the label is clicked (the click moves the focus)
    if f"● {prediction}" not in await tab.wait(rf"[○●] {re.escape(prediction)}"):
        await tab.click(f"○ {prediction}")
        await tab.wait(f"● {prediction}")
    await tab.replace("Explanation", explanation, below=1)
    return tab.text()


async def until_the_outcome(tab: Tab, session: int) -> str:
    """Send the answer (ctrl+s), then RATIFY (1) each later turn until the session's outcome is shown."""
    await tab.keys("Control+s")
    j = 2
    while True:
        text = await tab.wait(rf"{OUTCOME}|{TURN.format(session=session, j=j + 2)}")
        if re.search(OUTCOME, text):
            return text
        j += 2
        await tab.keys("1", "Control+s")
