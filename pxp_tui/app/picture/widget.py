"""A picture drawn off the UI loop for the cells it has, shown with textual-image or as characters.

``draw`` is called in a thread with the :class:`~pxp_tui.tasks.pictures.Surface` the picture has
(its cells, their pixels, the renderer) and returns image bytes or a Pillow image (shown by
textual-image: Sixel, kitty graphics or half-cell blocks), a
:class:`~pxp_tui.tasks.pictures.CellPicture` (shown as text), or None. It is called again when the
widget is resized.

Given a ``key`` (what is drawn: :func:`~pxp_tui.app.picture.cache.instance_key`...), a picture is
kept in :data:`~pxp_tui.app.picture.cache.CACHE` per size, and one found there is shown at once,
without a thread or a second drawing (the next instance's picture, drawn ahead, opens that way).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.containers import Center
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from pxp_tui.app.picture.cache import CACHE, Prepared, prepare
from pxp_tui.app.picture.halfcell import HalfcellPicture, HalfcellView
from pxp_tui.app.shared.css import beside
from pxp_tui.common.visible import visible
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

    class Drawn(Message):
        """A picture is on the screen, drawn for ``surface`` (its cells and pixels) at ``size`` (the image's pixels)."""

        def __init__(self, picture: Picture, surface: Surface, size: tuple[int, int]) -> None:
            super().__init__()
            self.picture, self.surface, self.size = picture, surface, size

    class Clicked(Message):
        """The picture was clicked (the instance view opens it full-screen)."""

        def __init__(self, picture: Picture) -> None:
            super().__init__()
            self.picture = picture

    def __init__(self, caption: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._caption = caption
        self._draw_fn: Draw | None = None
        self._key: Hashable | None = None  # what is drawn, for the cache (None: not kept)
        self._drawn_size: tuple[int, int] | None = None
        self._resize_timer: Any = None
        #: the surface last drawn for, and the size of the image last given to textual-image (None for text)
        self.surface: Surface | None = None
        self.shown_on: list[Surface] = []  # the surfaces this picture has been shown on (a prefetch draws the next for them)
        self.image_size: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        caption = Static(Content(visible(self._caption, one_line=True)), classes="picture-caption")
        caption.display = bool(self._caption)
        yield caption
        status = Static(Content(visible(self._status)), classes="picture-status")
        status.display = bool(self._status)
        yield Center(status, classes="picture-frame")

    def show(self, draw: Draw | None, caption: str | None = None, waiting: str = "drawing…", key: Hashable | None = None) -> None:
        """Draw (in a thread) and show a new picture; ``None`` clears it. Redrawn when the frame resizes.

        With a ``key``, a picture kept for the current size is shown at once (in this call).
        """
        if caption is not None and caption != self._caption:  # the same caption: nothing to lay out again
            self._caption = caption
            for shown in self.query(".picture-caption").results(Static):  # none yet before compose: it shows _caption
                shown.update(Content(visible(caption, one_line=True)))
                shown.display = bool(caption)
        if key is not None and key == self._key and self._shows(key):
            self._draw_fn = draw  # the same picture, shown (or being drawn) for the frame's size: nothing to redo
            return
        self._draw_fn, self._key = draw, key
        self._drawn_size = None
        self.shown_on = []
        if draw is not None and key is not None:
            # the frame's size now, or the last drawn: a picture drawn ahead is drawn for the former
            for surface in (self.frame_surface(), self.surface):
                if surface is not None and self._show_kept(surface):
                    return  # if the frame is laid out at another size, on_resize draws it for that size
        self._set_status(waiting if draw else "")
        self.call_after_refresh(self._redraw)

    def _shows(self, key: Hashable) -> bool:
        """Whether the picture of ``key`` is on screen for the frame's current size, or on its way."""
        if self._key != key or self._drawn_size is None or self._resize_due:
            return False
        frame = self.frame_surface()
        return frame is None or (frame.cols, frame.rows) == self._drawn_size

    def _show_kept(self, surface: Surface) -> bool:
        """Show the picture kept for ``surface`` (True), if there is one."""
        found, picture = CACHE.lookup(self._key, surface)
        if not found:
            return False
        self._drawn_size = (surface.cols, surface.rows)
        if self._draw_worker is not None:
            self._draw_worker.cancel()  # an older drawing must not replace this one
        shown, status, size = _widget(picture)
        self._display(shown, status, surface, size, self._key)
        return True

    def on_resize(self) -> None:
        if self._draw_fn is not None:
            if self._resize_timer is not None:
                self._resize_timer.stop()
            self._resize_due = True
            self._resize_timer = self.set_timer(0.2, self._redraw)

    def on_click(self, event: events.Click) -> None:
        if self._draw_fn is not None:
            self.post_message(self.Clicked(self))

    @property
    def busy(self) -> bool:
        """Whether a drawing is under way or due (a new picture, a resize not yet drawn for)."""
        worker = self._draw_worker
        return (self._draw_fn is not None and (self._drawn_size is None or self._resize_due)) or (
            worker is not None and worker.is_running
        )

    def frame_surface(self) -> Surface | None:
        """The surface the picture's frame has now, as laid out (None before it is, or once it is being taken down)."""
        frames = self.query(".picture-frame")
        if not frames:
            return None  # being taken down
        frame = frames.first()
        cols, rows = frame.size.width, frame.size.height
        if cols < 2 or rows < 1:
            return None
        from pxp_tui.app.picture.graphics import surface

        return surface(cols, rows)

    def _redraw(self) -> None:
        self._resize_due = False
        if not self.is_attached:  # removed (its screen closing) before its resize timer fired
            return
        if self._draw_fn is None:
            self._draw(None, None)
            return
        drawn_on = self.frame_surface()
        if drawn_on is None:
            return  # not laid out yet: on_resize draws it
        if (drawn_on.cols, drawn_on.rows) != self._drawn_size:
            self._drawn_size = (drawn_on.cols, drawn_on.rows)
            if self._key is not None and self._show_kept(drawn_on):
                return
            self._draw_worker = self._draw(self._draw_fn, drawn_on, self._key)

    _draw_worker: Any = None
    _resize_due = False

    @work(thread=True, exclusive=True, group="picture")
    def _draw(self, draw: Draw | None, surface: Surface | None, key: Hashable | None = None) -> None:
        worker = get_current_worker()
        shown: Widget | None = None
        status, size = "", None
        if draw is not None and surface is not None:
            from pxp_tui.app.picture.graphics import image_class

            try:
                if image_class() is None:
                    status = "pictures are off (PXP_IMAGES=none)"
                else:
                    picture = CACHE.draw(key, surface, draw) if key is not None else prepare(draw(surface), surface)
                    shown, status, size = _widget(picture)
            except Exception as exc:  # noqa: BLE001 - a picture is a nicety: say why there is none
                shown, status = None, f"no picture: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._display, shown, status, surface, size, key)

    def _display(
        self,
        shown: Widget | None,
        status: str,
        surface: Surface | None,
        size: tuple[int, int] | None,
        key: Hashable | None = None,
    ) -> None:
        frames, statuses = self.query(".picture-frame"), self.query(".picture-status")
        if not self.is_attached or not frames or not statuses:
            # a drawing that ended after the picture was removed, or while it is being taken down (the app closing
            # removes its parts first): nowhere to show it
            return
        frame = frames.first()
        self._set_status(status)
        self.surface, self.image_size = surface, size
        if surface is not None and surface not in self.shown_on:
            self.shown_on.append(surface)
        if shown is not None and surface is not None and size is not None:
            self.post_message(self.Drawn(self, surface, size))
        on_screen = frame.query(".picture-image")
        if key is not None and key == self._shown_key and _same_cells(shown, list(on_screen)):
            # the same picture in the same cells, drawn again for a frame a row taller or shorter (the machine's
            # message above it changed length): the one on the screen stays, and is not sent to the terminal again
            return
        self._shown_key = key if shown is not None else None
        if isinstance(shown, HalfcellView) and len(on_screen) == 1 and isinstance(on_screen[0], HalfcellView):
            on_screen[0].show(shown.picture)  # the lines swapped in the widget on the screen: no new widget to style
            return
        on_screen.remove()
        if shown is not None:
            frame.mount(shown)

    _shown_key: Hashable | None = None  # the key of the picture on the screen

    _status = ""  # the line under the picture ("drawing…", why there is none), kept for compose

    def _set_status(self, text: str) -> None:
        # a screen's on_mount may show a picture before the picture's own parts are composed: compose shows _status
        self._status = text
        for status in self.query(".picture-status").results(Static):
            status.update(Content(visible(text)))  # a drawing's error may quote the SMILES
            status.display = bool(text)


def _same_cells(shown: Widget | None, on_screen: list[Widget]) -> bool:
    """Whether ``shown`` is a half-cell picture of the same cells as the one ``on_screen``."""
    return (
        isinstance(shown, HalfcellView)
        and len(on_screen) == 1
        and isinstance(on_screen[0], HalfcellView)
        and on_screen[0].picture.cells == shown.picture.cells
    )


#: the key of a Pillow image's ``info`` that asks for it to be shown at its own size, in so many cells (:func:`unscaled`)
UNSCALED = "pxp-cells"


def unscaled(image: Any, cells: tuple[int, int]) -> Any:
    """``image`` (Pillow), to be shown at its own size in ``cells`` (columns, rows) whose pixels it fills exactly:
    textual-image's widget is given that size, not the frame's, and so scales nothing (1:1 in the viewer)."""
    image.info[UNSCALED] = cells
    return image


def _widget(picture: Prepared) -> tuple[Widget | None, str, tuple[int, int] | None]:
    """The widget that shows a prepared picture, the status to show instead, and the image's size."""
    from pxp_tui.app.picture.graphics import image_class

    widget_class = image_class()
    if widget_class is None:
        return None, "pictures are off (PXP_IMAGES=none)", None
    if isinstance(picture, CellPicture):
        return Static(cells_content(picture), classes="picture-image picture-cells"), "", None
    if isinstance(picture, HalfcellPicture):  # its lines built in the drawing thread
        return HalfcellView(picture, classes="picture-image"), "", picture.size
    if picture is None:
        return None, "no picture", None
    shown = widget_class(picture, classes="picture-image")
    cells = picture.info.get(UNSCALED)
    if cells is not None:  # textual-image scales an image of auto size to fit the frame: this one is given its own
        shown.styles.width, shown.styles.height = cells
    return shown, "", picture.size
