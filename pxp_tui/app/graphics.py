"""Terminal graphics through textual-image: which renderer, and asking the terminal before Textual starts.

textual-image asks the terminal what it supports (Sixel, the kitty graphics protocol, the cell size
in pixels) when it is imported, and cannot once Textual reads the keyboard. :func:`probe` asks in a
thread while the app's modules load; :func:`image_class` picks the widget. ``PXP_IMAGES`` chooses
the renderer: ``auto`` (default: Sixel or kitty where the terminal has them, half-cell blocks
otherwise, including inside tmux), ``sixel``, ``tgp``, ``halfcell``, ``unicode``, or ``none``.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from pxp_tui.tasks.pictures import Surface

RENDERERS = ("auto", "sixel", "tgp", "halfcell", "unicode", "none")


def renderer() -> str:
    value = os.environ.get("PXP_IMAGES", "auto").strip().lower() or "auto"
    return value if value in RENDERERS else "auto"


def probe() -> threading.Thread | None:
    """Ask the terminal about graphics in a thread; join it before the app starts. None if no terminal."""
    if renderer() == "none" or sys.__stdout__ is None or not sys.__stdout__.isatty():
        return None
    # the probe's own imports run here, so that its thread only waits for the terminal's answers
    # (and never imports a module Textual is importing at the same time)
    import numpy  # noqa: F401 - textual-image's Sixel encoder needs it
    import PIL.Image
    import PIL.ImageFilter  # noqa: F401
    import rich.color
    import rich.console
    import rich.control
    import rich.measure
    import rich.segment
    import rich.style  # noqa: F401

    thread = threading.Thread(target=_ask_terminal, name="pxp-terminal-probe", daemon=True)
    thread.start()
    return thread


def _ask_terminal() -> None:
    import textual_image.renderable  # noqa: F401 - asks for Sixel and kitty graphics support
    from textual_image._terminal import get_cell_size  # the widget module asks this at import

    get_cell_size()


def image_class() -> type[Any] | None:
    """The textual-image widget class for ``PXP_IMAGES``, or None when pictures are off."""
    choice = renderer()
    if choice == "none":
        return None
    import textual_image.widget as widgets

    return {
        "auto": widgets.Image,
        "sixel": widgets.SixelImage,
        "tgp": widgets.TGPImage,
        "halfcell": widgets.HalfcellImage,
        "unicode": widgets.UnicodeImage,
    }[choice]


def drawn_by() -> str:
    """The renderer pictures are drawn by: ``PXP_IMAGES``, or for ``auto`` what the terminal was found to support."""
    choice = renderer()
    if choice != "auto":
        return choice
    import textual_image.renderable as renderables

    return {
        renderables.SixelImage: "sixel",
        renderables.TGPImage: "tgp",
        renderables.HalfcellImage: "halfcell",
        renderables.UnicodeImage: "unicode",
    }.get(renderables.Image, "halfcell")


def surface(cols: int, rows: int) -> Surface:
    """``cols`` x ``rows`` cells as a surface to draw on, in the pixels the chosen renderer shows there.

    Half-cell blocks (and the unicode fallback) show two pixels per cell; Sixel and kitty graphics the
    terminal's cell size, as the start-up probe found it (a VT340's 10 x 20 without a terminal).
    """
    kind = drawn_by()
    if kind in ("halfcell", "unicode", "none"):
        return Surface(cols, rows, (cols, rows * 2), kind)
    from textual_image._terminal import get_cell_size

    cell = get_cell_size()
    return Surface(cols, rows, (cols * cell.width, rows * cell.height), kind)
