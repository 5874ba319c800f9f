"""The tests' and benchmarks' one door to the private parts of Textual, textual-image and asyncio.

Tests watch what Textual paints (the compositor, each frame's write to the terminal), read the app's
notifications, and deliver events as the terminal's driver does; benchmarks time the same steps. None of
it is public: every use is here, each saying what it relies on, and ``tests/app/test_internals.py`` has a
canary for each that names the release that moved it. (The app's own doors are
``pxp_tui/app/shared/textual_internals.py``, ``pxp_tui/app/picture/textual_image_internals.py`` and
``pxp_tui/agents/litellm_internals.py``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Relies on: ``textual._compositor``: ``Compositor`` (a screen's layout, ``reflow``, and its render,
# ``render_update``, ``render_strips``), and the updates ``render_update`` returns, ``LayoutUpdate`` (the
# whole screen) and ``ChopsUpdate`` (changed regions).
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate

# Relies on: ``textual.widgets._footer.FooterKey``, a key of the footer (``description``, ``display``, the
# ``-disabled`` and ``-command-palette`` classes). The app's footers use it through their own door.
from textual.widgets._footer import FooterKey

# Relies on: ``textual.widgets._header.HeaderTitle``, the header's title widget (its ``text`` and ``sub_text``,
# updated after the screen's title changes).
from textual.widgets._header import HeaderTitle

__all__ = [
    "FRAME",
    "HANDLE_RUN",
    "TERMINAL_WRITE",
    "ChopsUpdate",
    "Compositor",
    "FooterKey",
    "HeaderTitle",
    "LayoutUpdate",
    "forward_event",
    "handle_callback",
    "image_widget_base",
    "notifications",
    "on_frames",
    "on_terminal_writes",
    "palette_searching",
    "screen_lines",
    "screen_strips",
    "select_options",
    "send_to_driver",
    "sixel_data",
]

#: Relies on: ``Screen._compositor_refresh()``, the method that paints a screen's frame (lays out what is due,
#: renders it, writes it to the terminal), called once per frame.
FRAME = "_compositor_refresh"

#: Relies on: ``App._display(screen, renderable)``, the write of one frame to the terminal (``renderable`` is
#: None when there is nothing to write).
TERMINAL_WRITE = "_display"

#: Relies on: ``asyncio.events.Handle._run()``, how asyncio's loop runs each callback (Python's, not a
#: dependency's; the benchmarks time the loop's callbacks by it).
HANDLE_RUN = "_run"


def screen_lines(screen: Any) -> list[str]:
    """The text of ``screen``'s lines as its last frame rendered them (what the terminal got, without styles).

    Relies on: ``Screen._compositor``, the screen's ``Compositor``, and its ``render_strips()``.
    """
    return [strip.text for strip in screen._compositor.render_strips()]


def screen_strips(screen: Any) -> list[Any]:
    """``screen``'s lines as its last frame rendered them, with their styles (Rich segments).

    Relies on: ``Screen._compositor``, the screen's ``Compositor``, and its ``render_strips()``.
    """
    return list(screen._compositor.render_strips())


def on_frames(screen: Any, paint: Callable[[Callable[[], None]], None]) -> None:
    """From now on, each frame of ``screen`` is painted by ``paint(real)``, which must call ``real()`` once.

    Relies on: :data:`FRAME`, looked up on the screen at each frame (an instance attribute replaces it).
    """
    real = getattr(screen, FRAME)
    setattr(screen, FRAME, lambda: paint(real))


def on_terminal_writes(monkeypatch: Any, app_class: type, seen: Callable[[Any, Any], None]) -> None:
    """For the test (``monkeypatch``, pytest's), every write of a frame of ``app_class`` to the terminal is followed by ``seen(screen, renderable)``.

    Relies on: :data:`TERMINAL_WRITE`.
    """
    write = getattr(app_class, TERMINAL_WRITE)

    def written(self: Any, screen: Any, renderable: Any) -> None:
        write(self, screen, renderable)
        seen(screen, renderable)

    monkeypatch.setattr(app_class, TERMINAL_WRITE, written)


def notifications(app: Any) -> list[str]:
    """The messages of the notifications ``app`` shows now (``app.notify``).

    Relies on: ``App._notifications``, the app's ``Notifications``, iterated as ``Notification``\\ s with a
    ``message``.
    """
    return [str(note.message) for note in app._notifications]


def forward_event(widget: Any, event: Any) -> None:
    """Deliver ``event`` to ``widget`` as the driver delivers a mouse event (Pilot cannot send a mouse wheel).

    Relies on: ``Widget._forward_event(event)``.
    """
    widget._forward_event(event)


def send_to_driver(app: Any, event: Any) -> None:
    """``event`` (a key) sent to ``app`` as its terminal driver sends one: no Pilot waits, which force frames.

    Relies on: ``App._driver``, the running app's driver, and its ``send_message``.
    """
    app._driver.send_message(event)


def handle_callback(handle: Any) -> Any:
    """The callback an asyncio ``Handle`` runs (to name it in the benchmarks' spans).

    Relies on: ``asyncio.events.Handle._callback``.
    """
    return handle._callback


def image_widget_base() -> type:
    """The base class of every textual-image widget (Sixel, kitty, half-cell, unicode): its ``render`` marks a
    picture drawn, for the benchmarks.

    Relies on: ``textual_image.widget._base.Image``.
    """
    from textual_image.widget._base import Image

    return Image


def sixel_data(image: Any) -> str:
    """``image`` (Pillow) as textual-image's Sixel widget encodes it, before the app's rewrite (``sixel.py``).

    Relies on: ``textual_image._sixel.image_to_sixels(image)``, returning the Sixel string.
    """
    from textual_image._sixel import image_to_sixels

    return image_to_sixels(image)


def select_options(select: Any) -> list[tuple[Any, Any]]:
    """The ``(label, value)`` options a ``Select`` offers now (the blank one aside).

    Relies on: ``Select._options``, the list of ``(prompt, value)`` pairs its ``set_options`` kept.
    """
    return list(select._options)


def palette_searching(app: Any, palette: Any) -> bool:
    """Whether the command palette ``palette`` is still gathering its hits for what was typed.

    Relies on: ``CommandPalette._GATHER_COMMANDS_GROUP``, the worker group of its search.
    """
    return any(w.group == palette._GATHER_COMMANDS_GROUP and not w.is_finished for w in app.workers)
