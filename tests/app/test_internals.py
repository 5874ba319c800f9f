"""Canaries: one per use of a dependency's private parts, each failing with the dependency's name and release.

pxp uses a few private parts of Textual, textual-image, textual-serve, litellm and RDKit, each in one module per
dependency (its door): ``pxp_tui/app/shared/textual_internals.py``, ``pxp_tui/app/picture/textual_image_internals.py``,
``pxp_tui/app/shell/textual_serve_internals.py``, ``pxp_tui/agents/litellm_internals.py``,
``pxp_tui/tasks/drug/rdkit_internals.py``, and the tests' own,
``pxp_harness/internals.py``. Each test here checks
that what its door relies on is still there and still behaves so, through the door itself. When a release
moves one, the test says which dependency, which release, what moved and which door to adapt; the
behaviour built on it is tested elsewhere (the footers, the reply's frame, the terminal's probe, the
offline model's time).

A last test keeps every use in its door: no private module of these dependencies imported, and none of the
private names the doors wrap read, anywhere else.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import io
import platform
import re
import sys
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from pxp_harness import internals
from pxp_harness.app_helpers import wait_for
from pxp_harness.outside import python_output
from pxp_tui.agents import litellm_internals
from pxp_tui.app.picture import graphics
from pxp_tui.app.picture import textual_image_internals as image_internals
from pxp_tui.app.shared import textual_internals

from ..conftest import ROOT

TEXTUAL_DOOR = "pxp_tui/app/shared/textual_internals.py"
IMAGE_DOOR = "pxp_tui/app/picture/textual_image_internals.py"
LITELLM_DOOR = "pxp_tui/agents/litellm_internals.py"
SERVE_DOOR = "pxp_tui/app/shell/textual_serve_internals.py"
RDKIT_DOOR = "pxp_tui/tasks/drug/rdkit_internals.py"
TESTS_DOOR = "pxp_harness/internals.py"


@contextmanager
def relied_on(dependency: str, what: str, door: str) -> Iterator[None]:
    """Fail with a message that names ``dependency``'s release, ``what`` it no longer provides and ``door``."""
    release = platform.python_version() if dependency == "Python" else version(dependency)
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - whatever the release broke: an import, an attribute, a result
        pytest.fail(
            f"{dependency} {release} no longer provides {what}, which {door} relies on "
            f"({type(exc).__name__}: {exc}). Adapt {door} (each use says what it relies on), or keep "
            f"{dependency} below {release} in pyproject.toml.",
            pytrace=False,
        )


class Pinged(Message):
    """A message for a widget to queue."""


class Keyed(App[None]):
    BINDINGS = [Binding("x", "bell", "Bell", id="canary.bell")]

    def compose(self) -> ComposeResult:
        yield Static("canary text", id="text")
        yield Footer()


# -- Textual, the app's door ------------------------------------------------------------------------------
def test_footer_key_is_built_and_read_as_the_footers_do() -> None:
    with relied_on("textual", "textual.widgets._footer.FooterKey(key, key_display, description, action, ...)", TEXTUAL_DOOR):
        key = textual_internals.FooterKey("x", "X", "Bell", "bell", disabled=False, tooltip="Rings")
        assert (key.key, key.key_display, key.description, key.action) == ("x", "X", "Bell", "bell")
        assert internals.FooterKey is textual_internals.FooterKey


def test_a_footer_key_is_disabled_in_place() -> None:
    with relied_on("textual", "FooterKey._disabled (read when the key is clicked)", TEXTUAL_DOOR):
        key = textual_internals.FooterKey("x", "X", "Bell", "bell", disabled=True)
        assert key._disabled is True and key.has_class("-disabled")
        textual_internals.set_footer_key_disabled(key, False)
        assert key._disabled is False and not key.has_class("-disabled")
        assert "self._disabled" in _source(type(key).on_mouse_down)


async def test_a_footer_says_when_it_has_its_bindings() -> None:
    with relied_on("textual", "Footer._bindings_ready (set by Footer.bindings_changed)", TEXTUAL_DOOR):
        assert textual_internals.footer_bindings_ready(Footer()) is False
        app = Keyed()
        async with app.run_test() as pilot:
            footer = app.query_one(Footer)
            await wait_for(pilot, lambda: textual_internals.footer_bindings_ready(footer), "the footer's bindings")
            fresh = Footer()
            textual_internals.mark_footer_bindings_ready(fresh)
            assert textual_internals.footer_bindings_ready(fresh) is True


async def test_the_running_app_is_found_without_a_widget() -> None:
    with relied_on("textual", "textual._context.active_app", TEXTUAL_DOOR):
        app = Keyed()
        async with app.run_test():
            assert textual_internals.running_app() is app
    assert textual_internals.running_app() is None


async def test_a_node_s_bindings_are_read_as_textual_merged_them() -> None:
    with relied_on("textual", "DOMNode._bindings.key_to_bindings", TEXTUAL_DOOR):
        app = Keyed()
        async with app.run_test():
            keys = {b.key: b.action for b in textual_internals.declared_bindings(app)}
            assert keys["x"] == "bell" and "ctrl+q" in keys  # its own, and App's
            app.bind("z", "bell", description="Bell again")
            assert {b.key: b.action for b in textual_internals.declared_bindings(app)}["z"] == "bell"


async def test_a_widget_s_unhandled_messages_are_seen() -> None:
    with relied_on("textual", "MessagePump._message_queue", TEXTUAL_DOOR):
        app = Keyed()
        async with app.run_test() as pilot:
            text = app.query_one("#text", Static)
            await pilot.pause()
            assert not textual_internals.has_unhandled_messages(text)
            text.post_message(Pinged())
            assert textual_internals.has_unhandled_messages(text)
            await wait_for(pilot, lambda: not textual_internals.has_unhandled_messages(text), "the widget's messages handled")


def test_keys_read_from_the_terminal_become_the_events_the_driver_makes() -> None:
    with relied_on("textual", "textual._xterm_parser.XTermParser().feed(text), and feed('') at the end", TEXTUAL_DOOR):
        events_made = textual_internals.terminal_events("aé\x1b[Z\t\x1b")
        assert [e.key for e in events_made] == ["a", "é", "shift+tab", "tab", "escape"]
        assert textual_internals.terminal_events("") == []


# -- textual-image --------------------------------------------------------------------------------------
def test_the_terminal_reader_is_light() -> None:
    script = (
        "import sys\nfrom pxp_tui.app.picture import textual_image_internals as i\ni.load_reader()\n"
        "print(sorted(m for m in ('numpy', 'PIL.Image', 'textual_image.renderable') if m in sys.modules))"
    )
    with relied_on("textual-image", "textual_image._terminal, importable without numpy or Pillow", IMAGE_DOOR):
        assert python_output(script) == "[]"


def test_the_cell_size_is_asked_once_and_kept() -> None:
    with relied_on("textual-image", "textual_image._terminal.get_cell_size(), kept after its first answer", IMAGE_DOOR):
        cell = image_internals.cell_size()
        assert isinstance(cell.width, int) and isinstance(cell.height, int) and cell.width > 0 and cell.height > 0
        assert image_internals.cell_size() is cell


def test_textual_image_s_questions_are_answered_from_the_probe() -> None:
    """textual-image asks when its renderers are imported, through ``_terminal.capture_terminal_response``:
    Sixel's DA1 first, then the kitty query; the answers replayed are those the app's probe asked for."""
    script = f"""
from pxp_tui.app.picture import textual_image_internals as i
asked = []
def answer(start):
    asked.append(start)
    return {{{graphics.DA1[1]!r}: "\\x1b[?62;4c"}}.get(start, TimeoutError)
with i.answers_replayed(answer):
    from textual_image.renderable import sixel, tgp
    print(sixel.query_terminal_support(), tgp.query_terminal_support(), asked)
"""
    what = "textual_image._terminal.capture_terminal_response, through which its renderers ask DA1 and kitty's query"
    with relied_on("textual-image", what, IMAGE_DOOR):
        assert python_output(script) == f"True False {[graphics.DA1[1], graphics.KITTY[1]]!r}"


def test_an_image_is_fitted_to_cells_as_textual_image_s_widget_fits_it() -> None:
    with relied_on("textual-image", "textual_image._geometry.ImageSize(...).get_cell_size(...)", IMAGE_DOOR):
        cols, rows = image_internals.fitted_cells((200, 100), 40, 10)
        assert isinstance(cols, int) and isinstance(rows, int)
        assert 0 < cols <= 40 and 0 < rows <= 10


def test_an_image_is_scaled_as_textual_image_scales_it() -> None:
    from PIL import Image

    image = Image.new("RGB", (4, 2), (255, 0, 0))
    with relied_on("textual-image", "textual_image._pixeldata.PixelData(image, mode='rgb').scaled(w, h)", IMAGE_DOOR):
        rows = [list(row) for row in image_internals.scaled_rgb(image, 2, 2)]
        assert [[tuple(pixel) for pixel in row] for row in rows] == [[(255, 0, 0)] * 2] * 2


async def test_sixel_data_is_rewritten_before_textual_image_s_widget_writes_it() -> None:
    from PIL import Image

    written: list[str] = []
    widget = image_internals.sixel_widget(lambda sixels: written.append(sixels) or sixels.upper())

    class Shown(App[None]):
        def compose(self) -> ComposeResult:
            yield widget(Image.new("RGB", (40, 40), (200, 0, 0)))

    what = "textual_image.widget.sixel's Image composing _ImageSixelImpl, which encodes through _image_to_sixels"
    with relied_on("textual-image", what, IMAGE_DOOR):
        async with Shown().run_test(size=(40, 20)) as pilot:
            for _ in range(100):
                if written:
                    break
                await pilot.pause()
        assert written and written[0].startswith("\x1bP") and "#" in written[0]


def test_sixel_data_is_what_textual_image_encodes() -> None:
    from PIL import Image

    with relied_on("textual-image", "textual_image._sixel.image_to_sixels(image)", TESTS_DOOR):
        data = internals.sixel_data(Image.new("RGB", (12, 12), (0, 0, 255)))
        assert data.startswith("\x1bP") and data.endswith("\x1b\\")


def test_kitty_s_messages_are_written_wrapped_once_asked(monkeypatch) -> None:
    import textual_image.renderable.tgp as tgp
    from PIL import Image
    from rich.console import Console

    monkeypatch.setattr(tgp, "_send_tgp_message", tgp._send_tgp_message)  # textual-image's own again after the test
    screen = io.StringIO()
    monkeypatch.setattr(sys, "__stdout__", screen)
    what = "textual_image.renderable.tgp._send_tgp_message(*, payload, **keys): every kitty message, looked up when sent"
    with relied_on("textual-image", what, IMAGE_DOOR):
        image_internals.kitty_messages_wrapped(lambda message: f"<{message}>")
        image_internals.kitty_messages_wrapped(lambda message: f"[{message}]")  # once: not wrapped twice
        Console(file=io.StringIO(), width=10, height=5).print(tgp.Image(Image.new("RGB", (40, 20), "white"), 4, 2))
        messages = re.findall(r"<(\x1b_G[^;\x1b]*(?:;[^\x1b]*)?\x1b\\)>", screen.getvalue())
        assert "".join(f"<{message}>" for message in messages) == screen.getvalue()  # every message, wrapped
        assert any("f=100" in m for m in messages) and any("a=p" in m and "U=1" in m for m in messages)


# -- litellm --------------------------------------------------------------------------------------------
@pytest.fixture
def canary_provider() -> Iterator[list[dict[str, Any]]]:
    """A custom provider ``pxp-canary``, taken in by litellm after its load; what it was called with."""
    from pxp_tui.agents.llm import load_litellm

    litellm = load_litellm()
    calls: list[dict[str, Any]] = []

    class Canary(litellm.CustomLLM):  # type: ignore[misc,name-defined]
        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            calls.append(kwargs)
            response = litellm_internals.provider_response(kwargs)
            response.choices[0].message.content = "chirp"
            litellm_internals.set_hidden_param(response, "pxp_canary", 7)
            return response

    before = list(litellm.custom_provider_map or [])
    litellm.custom_provider_map = [*before, {"provider": "pxp-canary", "custom_handler": Canary()}]
    try:
        litellm_internals.take_in_custom_providers()
        yield calls
    finally:
        litellm.custom_provider_map = before
        litellm_internals.take_in_custom_providers()


def _canary_call() -> Any:
    from pxp_tui.agents.llm import load_litellm

    return load_litellm().completion(model="pxp-canary/one", messages=[{"role": "user", "content": "hi"}])


def test_a_provider_added_after_litellm_loaded_is_taken_in(canary_provider) -> None:
    with relied_on("litellm", "litellm.utils.custom_llm_setup()", LITELLM_DOOR):
        assert _canary_call().choices[0].message.content == "chirp"


def test_a_custom_provider_is_given_the_response_to_fill(canary_provider) -> None:
    with relied_on("litellm", "the keyword argument model_response of a CustomLLM's completion", LITELLM_DOOR):
        _canary_call()
        assert "model_response" in canary_provider[-1]


def test_a_custom_provider_s_hidden_parameter_reaches_the_caller(canary_provider) -> None:
    with relied_on("litellm", "ModelResponse._hidden_params, kept from a custom provider to its caller", LITELLM_DOOR):
        assert litellm_internals.hidden_params(_canary_call()).get("pxp_canary") == 7


def test_litellm_s_price_of_a_call_is_among_the_hidden_parameters() -> None:
    from pxp_tui.agents.llm import load_litellm

    litellm = load_litellm()
    with relied_on("litellm", "ModelResponse._hidden_params['response_cost']", LITELLM_DOOR):
        response = litellm.completion(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], mock_response="yo")
        cost = litellm_internals.hidden_params(response).get("response_cost")
        assert isinstance(cost, float) and cost > 0
    assert litellm_internals.hidden_params(object()) == {}


# -- RDKit, the DRUG task's door ----------------------------------------------------------------------------
def test_the_average_weight_is_rdkit_s_molwt() -> None:
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    from pxp_tui.tasks.drug import rdkit_internals

    with relied_on("rdkit", "rdMolDescriptors._CalcMolWt (what Descriptors.MolWt calls)", RDKIT_DOOR):
        for smiles in ("CCO", "c1ccccc1O", "[NH4+].[Cl-]", "C[C@H](N)C(=O)O", "[2H]C([2H])([2H])Br"):
            mol = Chem.MolFromSmiles(smiles)
            assert rdkit_internals.average_weight(mol) == Descriptors.MolWt(mol)  # type: ignore[attr-defined]


# -- Textual and textual-image, the tests' door ---------------------------------------------------------
def test_the_compositor_is_there_to_watch() -> None:
    with relied_on(
        "textual", "textual._compositor: Compositor.reflow / render_update / render_strips, ChopsUpdate, LayoutUpdate", TESTS_DOOR
    ):
        for method in ("reflow", "render_update", "render_strips"):
            assert callable(getattr(internals.Compositor, method))
        assert isinstance(internals.ChopsUpdate, type) and isinstance(internals.LayoutUpdate, type)


async def test_a_screen_s_frames_and_lines_are_seen() -> None:
    with relied_on("textual", "Screen._compositor_refresh and Screen._compositor.render_strips()", TESTS_DOOR):
        app = Keyed()
        async with app.run_test() as pilot:
            painted: list[int] = []

            def paint(real: Any) -> None:
                real()
                painted.append(1)

            internals.on_frames(app.screen, paint)
            app.query_one("#text", Static).update("canary changed")
            await wait_for(pilot, lambda: bool(painted), "a frame painted")
            assert any("canary changed" in line for line in internals.screen_lines(app.screen))
            styled = [seg for strip in internals.screen_strips(app.screen) for seg in strip if "canary" in seg.text]
            assert styled and styled[0].style is not None and styled[0].style.bgcolor is not None  # with its colours


async def test_each_frame_written_to_the_terminal_is_seen(monkeypatch) -> None:
    with relied_on("textual", "App._display(screen, renderable)", TESTS_DOOR):
        written: list[Any] = []
        internals.on_terminal_writes(monkeypatch, Keyed, lambda screen, renderable: written.append(renderable))
        app = Keyed()
        async with app.run_test() as pilot:
            app.query_one("#text", Static).update("canary changed")
            await wait_for(pilot, lambda: any(r is not None for r in written), "a frame written")


async def test_the_app_s_notifications_are_read() -> None:
    with relied_on("textual", "App._notifications", TESTS_DOOR):
        app = Keyed()
        async with app.run_test() as pilot:
            app.notify("canary note")
            await wait_for(pilot, lambda: "canary note" in internals.notifications(app), "the canary's notification")


async def test_the_header_s_title_is_read_from_its_title_widget() -> None:
    class Titled(App[None]):
        TITLE = "canary title"

        def compose(self) -> ComposeResult:
            yield Header()

    with relied_on("textual", "textual.widgets._header.HeaderTitle, rendering the header's title", TESTS_DOOR):
        app = Titled()
        async with app.run_test() as pilot:
            title = app.query_one(Header).query_one(internals.HeaderTitle)
            await wait_for(pilot, lambda: "canary title" in str(title.render()), "the header's title")


async def test_a_mouse_event_is_forwarded_as_the_driver_does() -> None:
    class Wheel(Widget):
        scrolled = 0

        def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
            self.scrolled += 1

    class Wheeled(App[None]):
        def compose(self) -> ComposeResult:
            yield Wheel()

    with relied_on("textual", "Widget._forward_event(event)", TESTS_DOOR):
        app = Wheeled()
        async with app.run_test() as pilot:
            wheel = app.query_one(Wheel)
            internals.forward_event(wheel, events.MouseScrollUp(None, 1, 1, 0, 0, 0, False, False, False, screen_x=1, screen_y=1))
            await wait_for(pilot, lambda: wheel.scrolled == 1, "the wheel's scroll")


async def test_a_key_is_sent_as_the_driver_sends_it() -> None:
    with relied_on("textual", "App._driver.send_message(event)", TESTS_DOOR):
        app = Keyed()
        rung: list[int] = []
        app.action_bell = lambda: rung.append(1)  # type: ignore[method-assign]
        async with app.run_test() as pilot:
            key = events.Key("x", "x")
            key.set_sender(app)
            internals.send_to_driver(app, key)
            await wait_for(pilot, lambda: bool(rung), "the bell")


def test_asyncio_s_callbacks_are_there_to_time() -> None:
    loop = asyncio.new_event_loop()
    try:

        def callback() -> None:
            pass

        with relied_on("Python", "asyncio.events.Handle._run and Handle._callback", TESTS_DOOR):
            handle = loop.call_soon(callback)
            assert internals.handle_callback(handle) is callback
            assert callable(getattr(asyncio.events.Handle, internals.HANDLE_RUN))
    finally:
        loop.close()


def test_every_textual_image_widget_shares_the_base_the_benchmarks_time() -> None:
    with relied_on("textual-image", "textual_image.widget._base.Image", TESTS_DOOR):
        import textual_image.widget as widgets

        base = internals.image_widget_base()
        for kind in ("SixelImage", "TGPImage", "HalfcellImage", "UnicodeImage"):
            assert issubclass(getattr(widgets, kind), base)


async def test_a_tab_s_app_process_is_there_to_wait_for() -> None:
    from textual_serve.app_service import AppService
    from textual_serve.download_manager import DownloadManager

    from pxp_tui.app.shell import textual_serve_internals

    async def ignore(*_: object) -> None:
        return None

    with relied_on("textual-serve", "AppService._process, the process its start made", SERVE_DOOR):
        service = AppService("exit 3", write_bytes=ignore, write_str=ignore, close=ignore, download_manager=DownloadManager())
        assert textual_serve_internals.app_process(service) is None  # not started
        await service.start(80, 24)
        process = textual_serve_internals.app_process(service)
        assert process is not None
        assert await process.wait() == 3


async def test_a_tab_s_websocket_is_handed_to_the_server_s_own_loop() -> None:
    import inspect

    from textual_serve.server import Server

    with relied_on("textual-serve", "Server._process_messages(websocket, app_service), a coroutine", SERVE_DOOR):
        loop = Server._process_messages
        assert inspect.iscoroutinefunction(loop)
        assert list(inspect.signature(loop).parameters)[1:3] == ["websocket", "app_service"]


async def test_a_select_s_options_are_read_as_it_keeps_them() -> None:
    from textual.widgets import Select

    class Choosing(App[None]):
        def compose(self) -> ComposeResult:
            yield Select([("one", 1), ("two", 2)], id="choice")

    with relied_on("textual", "Select._options, the (prompt, value) pairs set_options kept", TESTS_DOOR):
        async with Choosing().run_test() as pilot:
            choice = pilot.app.query_one(Select)
            choice.set_options([("three", 3)])
            await pilot.pause()
            assert [value for _, value in internals.select_options(choice)][-1:] == [3]
            assert "one" not in [str(label) for label, _ in internals.select_options(choice)]


async def test_the_command_palette_s_search_is_seen_until_it_is_done() -> None:
    from textual.command import CommandPalette

    with relied_on("textual", "CommandPalette._GATHER_COMMANDS_GROUP, the worker group of its search", TESTS_DOOR):
        async with Keyed().run_test() as pilot:
            await pilot.press("ctrl+p")
            await pilot.press(*"bell")
            app = pilot.app
            assert isinstance(app.screen, CommandPalette)
            assert isinstance(CommandPalette._GATHER_COMMANDS_GROUP, str)
            await wait_for(pilot, lambda: not internals.palette_searching(app, app.screen), "the palette's search")


def test_under_the_web_driver_a_file_s_pieces_and_the_frames_reach_the_server_as_whole_packets() -> None:
    """The frames from one thread, a file's pieces from another, larger than the pipe's buffer, the server reading
    slowly: every packet arrives whole (unlocked, the parts of one landed between the parts of another)."""
    import os
    import threading
    from types import SimpleNamespace

    from textual.drivers.web_driver import WebDriver

    count, frame, piece = 20, "a" * 150_000, b"b" * 65_536
    with relied_on("textual", "App._driver and WebDriver._write(data), one packet per write", TEXTUAL_DOOR):
        driver = WebDriver.__new__(WebDriver)  # its writes only (no input thread on this test's stdin)
        reading, writing = os.pipe()
        driver._write = lambda data: os.write(writing, data)
        textual_internals.web_writes_whole(SimpleNamespace(_driver=driver))
        received = bytearray()

        def read() -> None:
            while chunk := os.read(reading, 4096):  # a server slower than the writers
                received.extend(chunk)

        reader = threading.Thread(target=read)
        reader.start()
        writers = [
            threading.Thread(target=lambda: [driver.write(frame) for _ in range(count)]),
            threading.Thread(target=lambda: [driver.write_binary_encoded(("deliver_chunk", "k", piece)) for _ in range(count)]),
        ]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        os.close(writing)
        reader.join()
        os.close(reading)
    kinds, at = [], 0
    while at < len(received):
        kind, size = received[at : at + 1], int.from_bytes(received[at + 1 : at + 5], "big")
        payload = bytes(received[at + 5 : at + 5 + size])
        assert kind in (b"D", b"P"), f"a packet cut at byte {at}"
        assert payload == frame.encode() if kind == b"D" else piece in payload, f"a packet mixed at byte {at}"
        kinds.append(kind)
        at += 5 + size
    assert kinds.count(b"D") == kinds.count(b"P") == count


# -- every use in its door ------------------------------------------------------------------------------
DEPENDENCIES = ("textual", "textual_image", "litellm", "textual_serve", "rdkit")
DOORS = {Path(TEXTUAL_DOOR), Path(IMAGE_DOOR), Path(LITELLM_DOOR), Path(SERVE_DOOR), Path(RDKIT_DOOR), Path(TESTS_DOOR)}
#: the private names the doors wrap (the benchmarks' profile reports only name Textual's frame steps, as text)
WRAPPED = {
    "_disabled",
    "_bindings_ready",
    "_bindings",
    "_message_queue",
    "_hidden_params",
    "_compositor",
    "_compositor_refresh",
    "_notifications",
    "_forward_event",
    "_driver",
    "_callback",
    "_CalcMolWt",
}


#: private names read outside the doors that are not a dependency's: Python's own (``argparse``'s list of a
#: parser's actions, read to list or change its options) and Enum's documented ``_value_``-style names (sunder)
STANDARD = {"_actions": "argparse.ArgumentParser._actions: a parser's actions (Python's, not a dependency's)"}


def own_private_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every private name pxp's own code defines: functions, classes, names and attributes it assigns, arguments,
    import aliases. A private name read that is none of these is a dependency's."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
    return names - WRAPPED


def private_parts_outside_doors(trees: dict[Path, ast.Module], doors: set[Path], own: AbstractSet[str]) -> list[str]:
    """Each use in ``trees``, outside ``doors``, of a private part of a dependency: a private module of one imported,
    a name a door wraps read, ``sys`` changed, or any private attribute (``x._name``, not ``_name_`` or
    ``__name__``) that is not among ``own`` (the private names pxp's code defines) nor the standard library's."""
    found = []
    for relative, tree in trees.items():
        if relative in doors:
            continue
        standard_modules = {
            alias.asname or alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name.split(".")[0] in sys.stdlib_module_names
        }
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            for module in modules:
                parts = module.split(".")
                if parts[0] in DEPENDENCIES and any(p.startswith("_") for p in parts[1:]):
                    found.append(f"{relative}:{node.lineno} imports {module}")
            if isinstance(node, ast.Attribute) and node.attr in WRAPPED:
                found.append(f"{relative}:{node.lineno} reads .{node.attr}")
            elif isinstance(node, ast.Attribute) and _foreign_private(node, own, standard_modules):
                found.append(f"{relative}:{node.lineno} reads .{node.attr}, a private name pxp does not define")
            if _sets_a_part_of_sys(node):
                found.append(f"{relative}:{node.lineno} replaces a part of sys")
    return found


def _foreign_private(node: ast.Attribute, own: AbstractSet[str], standard_modules: set[str]) -> bool:
    name = node.attr
    if not name.startswith("_") or name.startswith("__") or (name.endswith("_") and len(name) > 2):
        return False
    if name in own or name in STANDARD:
        return False
    return not (isinstance(node.value, ast.Name) and node.value.id in standard_modules)


def _trees() -> dict[Path, ast.Module]:
    """Every Python file of the project, parsed (once per test process: the trees are only read)."""
    return dict(_parsed())


@functools.cache
def _parsed() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple(
        (path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8")))
        for folder in ("pxp_tui", "pxp_harness", "tests", "benchmarks", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
    )


@functools.cache
def _own() -> frozenset[str]:
    return frozenset(own_private_names(_trees()))


def test_every_use_of_a_private_part_is_in_its_door() -> None:
    found = private_parts_outside_doors(_trees(), DOORS | {Path(__file__).relative_to(ROOT)}, _own())
    assert not found, "private parts used outside their doors:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("choices = select._options", "reads ._options, a private name pxp does not define"),
        ("group = CommandPalette._GATHER_COMMANDS_GROUP", "reads ._GATHER_COMMANDS_GROUP, a private name pxp does not define"),
        ("footer._bindings_ready", "reads ._bindings_ready"),
        ("import textual._compositor", "imports textual._compositor"),
    ],
)
def test_a_private_part_read_outside_the_doors_is_caught_whoever_names_it(line: str, said: str) -> None:
    """Any private name of a dependency's object, not a list of known ones: a new use fails the guard (Python's own
    private names, here ``os._exit``, are not a dependency's)."""
    new = {Path("pxp_tui/app/new_screen.py"): ast.parse(f"import os\n{line}\nos._exit(0)\n")}
    found = private_parts_outside_doors(new, DOORS, _own() | own_private_names(new))
    assert [f for f in found if "new_screen" in f] == [f"pxp_tui/app/new_screen.py:2 {said}"]


# -- helpers --------------------------------------------------------------------------------------------
def _sets_a_part_of_sys(node: ast.AST) -> bool:
    """``setattr(sys, ...)`` (as the swap of ``sys.__stdout__`` is written)."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and node.args):
        return False
    return isinstance(node.args[0], ast.Name) and node.args[0].id == "sys"


def _source(function: Any) -> str:
    import inspect

    return inspect.getsource(function)
