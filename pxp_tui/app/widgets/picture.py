"""A picture drawn off the UI loop for the cells it has, shown with textual-image or as characters.

``draw`` is called in a thread with the :class:`~pxp_tui.tasks.pictures.Surface` the picture has
(its cells, their pixels, the renderer) and returns image bytes or a Pillow image (shown by
textual-image: Sixel, kitty graphics or half-cell blocks), a
:class:`~pxp_tui.tasks.pictures.CellPicture` (shown as text), or None. It is called again when the
widget is resized.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.containers import Center
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from pxp_tui.app.css import beside
from pxp_tui.tasks.pictures import CellPicture, Surface

#: draws a picture for a surface: image bytes, a Pillow image, characters, or None for no picture
Draw = Callable[[Surface], Any]


def cells_content(picture: CellPicture) -> Content:
    """A picture made of characters as Textual content, its styles applied."""
    return Content("\n").join(
        Content.assemble(*[(text, style) if style else text for text, style in row]) for row in picture.rows
    )


class Picture(Widget):
    """Shows what ``draw`` returns; drawing and decoding run in a thread, the caption stays on top."""

    DEFAULT_CSS = beside(__file__)

    class Clicked(Message):
        """The picture was clicked (the instance view opens it full-screen)."""

        def __init__(self, picture: Picture) -> None:
            super().__init__()
            self.picture = picture

    def __init__(self, caption: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._caption = caption
        self._draw_fn: Draw | None = None
        self._drawn_size: tuple[int, int] | None = None
        self._resize_timer: Any = None
        #: the surface last drawn for, and the size of the image last given to textual-image (None for text)
        self.surface: Surface | None = None
        self.image_size: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        caption = Static(self._caption, classes="picture-caption")
        caption.display = bool(self._caption)
        yield caption
        yield Center(Static("", classes="picture-status"), classes="picture-frame")

    def show(self, draw: Draw | None, caption: str | None = None, waiting: str = "drawing…") -> None:
        """Draw (in a thread) and show a new picture; ``None`` clears it. Redrawn when the frame resizes."""
        if caption is not None:
            self._caption = caption
            shown = self.query_one(".picture-caption", Static)
            shown.update(caption)
            shown.display = bool(caption)
        self._draw_fn = draw
        self._drawn_size = None
        self._set_status(waiting if draw else "")
        self.call_after_refresh(self._redraw)

    def on_resize(self) -> None:
        if self._draw_fn is not None:
            if self._resize_timer is not None:
                self._resize_timer.stop()
            self._resize_timer = self.set_timer(0.2, self._redraw)

    def on_click(self, event: events.Click) -> None:
        if self._draw_fn is not None:
            self.post_message(self.Clicked(self))

    def _redraw(self) -> None:
        frame = self.query_one(".picture-frame")
        if self._draw_fn is None:
            self._draw(None, None)
            return
        cols, rows = frame.size.width, frame.size.height
        if cols < 2 or rows < 1:
            return  # not laid out yet: on_resize draws it
        if (cols, rows) != self._drawn_size:
            self._drawn_size = (cols, rows)
            from pxp_tui.app.graphics import surface

            self._draw(self._draw_fn, surface(cols, rows))

    @work(thread=True, exclusive=True, group="picture")
    def _draw(self, draw: Draw | None, surface: Surface | None) -> None:
        worker = get_current_worker()
        shown: Widget | None = None
        status, size = "", None
        if draw is not None and surface is not None:
            from pxp_tui.app.graphics import image_class

            widget_class = image_class()
            try:
                data = draw(surface) if widget_class is not None else None
                if isinstance(data, CellPicture):
                    shown = Static(cells_content(data), classes="picture-image picture-cells")
                elif data is not None and widget_class is not None:
                    from PIL import Image as PILImage

                    pil = data if isinstance(data, PILImage.Image) else PILImage.open(io.BytesIO(data))
                    pil.load()
                    shown, size = widget_class(pil, classes="picture-image"), pil.size
                elif widget_class is None:
                    status = "pictures are off (PXP_IMAGES=none)"
                else:
                    status = "no picture"
            except Exception as exc:  # noqa: BLE001 - a picture is a nicety: say why there is none
                shown, status = None, f"no picture: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._display, shown, status, surface, size)

    def _display(self, shown: Widget | None, status: str, surface: Surface | None, size: tuple[int, int] | None) -> None:
        frame = self.query_one(".picture-frame")
        frame.query(".picture-image").remove()
        self._set_status(status)
        self.surface, self.image_size = surface, size
        if shown is not None:
            frame.mount(shown)

    def _set_status(self, text: str) -> None:
        status = self.query_one(".picture-status", Static)
        status.update(text)
        status.display = bool(text)
