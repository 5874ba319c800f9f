"""A picture drawn off the UI loop and shown with textual-image (Sixel, kitty graphics or half-cell blocks)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Center
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from pxp_tui.app.css import beside

#: draws a picture of about (width, height) pixels; returns image bytes, or None for no picture
Draw = Callable[[tuple[int, int]], "bytes | None"]


class Picture(Widget):
    """Shows what ``draw`` returns; drawing and decoding run in a thread, the caption stays on top."""

    DEFAULT_CSS = beside(__file__)

    def __init__(self, caption: str = "", *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._caption = caption
        self._draw_fn: Draw | None = None
        self._drawn_size: tuple[int, int] | None = None
        self._resize_timer: Any = None

    def compose(self) -> ComposeResult:
        yield Static(self._caption, classes="picture-caption")
        yield Center(Static("", classes="picture-status"), classes="picture-frame")

    def show(self, draw: Draw | None, caption: str | None = None, waiting: str = "drawing…") -> None:
        """Draw (in a thread) and show a new picture; ``None`` clears it. Redrawn when the frame resizes."""
        if caption is not None:
            self._caption = caption
            self.query_one(".picture-caption", Static).update(caption)
        self._draw_fn = draw
        self._drawn_size = None
        self._set_status(waiting if draw else "")
        self.call_after_refresh(self._redraw)

    def on_resize(self) -> None:
        if self._draw_fn is not None:
            if self._resize_timer is not None:
                self._resize_timer.stop()
            self._resize_timer = self.set_timer(0.2, self._redraw)

    def _redraw(self) -> None:
        frame = self.query_one(".picture-frame")
        if self._draw_fn is None:
            self._draw(None, (0, 0))
            return
        if frame.size.width < 2 or frame.size.height < 1:
            return  # not laid out yet: on_resize draws it
        size = self._pixel_size()
        if size != self._drawn_size:
            self._drawn_size = size
            self._draw(self._draw_fn, size)

    def _pixel_size(self) -> tuple[int, int]:
        """The frame's size in the pixels the picture will be shown with (two per cell for half-cell blocks)."""
        frame = self.query_one(".picture-frame")
        cols, rows = frame.size.width, frame.size.height
        from pxp_tui.app.graphics import cell_pixels

        return cell_pixels(cols, rows)

    @work(thread=True, exclusive=True, group="picture")
    def _draw(self, draw: Draw | None, size: tuple[int, int]) -> None:
        worker = get_current_worker()
        image = None
        status = ""
        if draw is not None:
            from pxp_tui.app.graphics import image_class

            widget_class = image_class()
            try:
                data = draw(size)
                if data is not None and widget_class is not None:
                    from PIL import Image as PILImage

                    pil = PILImage.open(io.BytesIO(data))
                    pil.load()
                    image = widget_class(pil, classes="picture-image")
            except Exception as exc:  # noqa: BLE001 - a picture is a nicety: say why there is none
                data, image, status = None, None, f"no picture: {exc}"
            if data is None:
                status = status or "no picture"
            elif widget_class is None:
                status = "pictures are off (PXP_IMAGES=none)"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._display, image, status)

    def _display(self, image: Widget | None, status: str) -> None:
        frame = self.query_one(".picture-frame")
        frame.query(".picture-image").remove()
        self._set_status(status)
        if image is not None:
            frame.mount(image)

    def _set_status(self, text: str) -> None:
        status = self.query_one(".picture-status", Static)
        status.update(text)
        status.display = bool(text)
