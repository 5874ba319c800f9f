"""The app's one door to textual-image's private parts: every use of them is here, each saying what it relies on.

textual-image asks the terminal its questions when imported and draws half-cell pictures when painted;
pxp asks the questions before Textual starts (``graphics.py``, with a reader of its own) and builds half-cell pictures in a thread
(``halfcell.py``), with textual-image's own reader, geometry and scaling, which it does not export; inside
tmux it wraps the kitty messages textual-image writes for tmux's passthrough (``tmux.py``). Each
use is checked by a canary test (``tests/app/test_internals.py``) that names textual-image's release when one
moves; ``pyproject.toml`` admits the releases the canaries pass on (``textual-image>=0.9,<0.13``).

Nothing of textual-image is imported with this module: each function imports what it uses (its reader
is light; its widgets import numpy and Pillow, after the first paint).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any


def load_reader() -> None:
    """Import textual-image's terminal reader (light: no numpy, no Pillow).

    Relies on: the module ``textual_image._terminal``.
    """
    import textual_image._terminal  # noqa: F401


def cell_size() -> Any:
    """The terminal's cell in pixels (``.width``, ``.height``), as textual-image found it; asked once, then kept.

    Relies on: ``textual_image._terminal.get_cell_size()``, which keeps its first answer for every later
    call (textual-image's widgets call it as they draw: the answer given at the probe is theirs).
    """
    from textual_image._terminal import get_cell_size

    return get_cell_size()


@contextmanager
def answers_replayed(answer: Callable[[str], str | type[Exception]]) -> Iterator[None]:
    """While inside, textual-image's questions to the terminal are answered by ``answer(start_marker)``: the
    answer's text, or an exception class to raise (no answer). Import ``textual_image.renderable`` inside.

    Relies on: ``textual_image._terminal.capture_terminal_response(start_marker, end_marker, timeout)``, a
    context manager yielding an object whose ``sequence`` holds the answer after the ``with``; the modules of
    ``textual_image.renderable`` take it from ``_terminal`` when imported and ask through it then, writing
    the question to ``sys.__stdout__`` inside the ``with`` (it is sent nowhere here: the terminal has been
    asked already, and Textual reads the keyboard).
    """
    import textual_image._terminal as terminal

    @contextmanager
    def replayed(start_marker: str, end_marker: str, timeout: float | None = None) -> Iterator[SimpleNamespace]:
        response = SimpleNamespace(sequence="")
        screen = sys.__stdout__
        # for the moment of the question (typeshed: Final); the terminal stays findable through it: Textual's
        # SIGWINCH handler, running meanwhile on the main thread, reads the size from sys.__stdout__'s descriptor
        # (shutil.get_terminal_size), and a StringIO there gave 80x24 until the next resize (kitty, starting)
        setattr(sys, "__stdout__", _Unsent(screen))  # noqa: B010
        try:
            yield response
        finally:
            setattr(sys, "__stdout__", screen)  # noqa: B010
        found = answer(start_marker)
        if isinstance(found, type):
            raise found(f"no answer to {start_marker!r} before the app started")
        response.sequence = found

    reader = terminal.capture_terminal_response
    terminal.capture_terminal_response = replayed
    try:
        yield
    finally:
        terminal.capture_terminal_response = reader


class _Unsent(io.StringIO):
    """Takes what is written (sent nowhere), and answers for ``screen``'s descriptor: its size, whether a tty."""

    def __init__(self, screen: Any) -> None:
        super().__init__()
        self._screen = screen

    def fileno(self) -> int:
        if self._screen is None:
            raise io.UnsupportedOperation("no terminal")
        return int(self._screen.fileno())

    def isatty(self) -> bool:
        return self._screen is not None and bool(self._screen.isatty())


def fitted_cells(pixels: tuple[int, int], cols: int, rows: int) -> tuple[int, int]:
    """The cells textual-image's widget gives an image of ``pixels`` in a frame of ``cols`` x ``rows``
    (its width and height ``auto``): its content width, its height for that width, then the renderer's fit.

    Relies on: ``textual_image._geometry.ImageSize(width, height, width=, height=)`` and its
    ``get_cell_size(max_width, max_height, cell_size)``, the arithmetic of textual-image's widgets.
    """
    from textual_image._geometry import ImageSize

    size, cell = ImageSize(pixels[0], pixels[1], width="auto", height="auto"), cell_size()
    width, _ = size.get_cell_size(cols, rows or 2**32, cell)
    _, height = size.get_cell_size(width, rows or 2**32, cell)
    return size.get_cell_size(width, height, cell)


def scaled_rgb(image: Any, width: int, height: int) -> Iterable[Iterable[Any]]:
    """``image`` (Pillow) scaled to ``width`` x ``height`` pixels as textual-image's renderers scale it: rows of
    RGB triplets.

    Relies on: ``textual_image._pixeldata.PixelData(image, mode="rgb").scaled(width, height)``, iterated as
    rows of pixels.
    """
    from textual_image._pixeldata import PixelData

    return PixelData(image, mode="rgb").scaled(width, height)


def sixel_widget(rewrite: Callable[[str], str]) -> type:
    """textual-image's Sixel widget, each image's Sixel data passed through ``rewrite`` before it is written.

    Relies on: ``textual_image.widget.sixel.Image`` (public) composing one ``_ImageSixelImpl(image,
    sixel_options)`` from its ``_sixel_options``, which encodes through ``_image_to_sixels(image, sixel_options,
    background=...)`` returning the Sixel string; ``_NoopRenderable``, the widget's ``Renderable``.
    """
    from textual_image.widget.sixel import Image, _ImageSixelImpl, _NoopRenderable

    class Rewritten(_ImageSixelImpl):
        def _image_to_sixels(self, image: Any, sixel_options: Any = None, background: Any = None) -> str:
            return rewrite(super()._image_to_sixels(image, sixel_options, background))

    class Widget(Image, Renderable=_NoopRenderable):
        def compose(self) -> Iterator[Any]:
            yield Rewritten(self.image, self._sixel_options)

    return Widget


def kitty_messages_wrapped(wrap: Callable[[str], str]) -> None:
    """From now on every kitty graphics message textual-image writes (a picture's data, its placement, its deletion)
    is written as ``wrap(message)``: through tmux's passthrough, where the terminal around tmux is kitty. Once.

    Relies on: ``textual_image.renderable.tgp._send_tgp_message(*, payload=None, **keys)``, the one function its
    kitty renderer writes every message with (looked up as a module global when called), writing
    ``ESC _ G keys ; payload ESC \\`` to ``sys.__stdout__`` (kitty's graphics protocol).
    """
    import textual_image.renderable.tgp as tgp

    if getattr(tgp._send_tgp_message, "wrapped", False):
        return

    def send(*, payload: str | None = None, **keys: int | str | None) -> None:
        if sys.__stdout__ is None:
            raise tgp.TerminalError("sys.__stdout__ is None")
        fields = ",".join(f"{key}={value}" for key, value in keys.items() if value is not None)
        sys.__stdout__.write(wrap(f"\x1b_G{fields}{';' + payload if payload else ''}\x1b\\"))
        sys.__stdout__.flush()

    send.wrapped = True  # type: ignore[attr-defined]
    tgp._send_tgp_message = send
