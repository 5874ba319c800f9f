"""A picture on the whole screen: the X-ray with zoom and pan, or the molecule and the reaction drawn large.

Zooming crops the original image (Pillow) and scales the crop to the pixels the terminal shows, so a
radiologist zooming on a lung sees the file's own detail at every renderer (Sixel, kitty graphics,
half-cell blocks). Molecules are drawn again for the whole screen. Escape (or q, or f) goes back to
where the expert was.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from pxp_tui.app.picture.instance_info import describe, open_outside
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.picture.zoom import View
from pxp_tui.common.visible import visible


class PictureScreen(Screen):
    """``instance``'s picture (``which="instance"``) or ``prediction``'s (``"prediction"``), full-screen."""

    CSS_PATH = "viewer.tcss"
    BINDINGS = [
        Binding("escape,q,f", "close", "Back", id="viewer.close"),
        Binding("plus,equals_sign", "zoom(1)", "Zoom in", id="viewer.zoom_in"),
        Binding("minus", "zoom(-1)", "Zoom out", id="viewer.zoom_out"),
        Binding("left,h", "pan(-1, 0)", "Pan left", id="viewer.left", show=False),
        Binding("right,l", "pan(1, 0)", "Pan right", id="viewer.right", show=False),
        Binding("up,k", "pan(0, -1)", "Pan up", id="viewer.up", show=False),
        Binding("down,j", "pan(0, 1)", "Pan down", id="viewer.down", show=False),
        Binding("0,home", "reset", "Whole picture", id="viewer.reset"),
        Binding("tab", "switch", "Target / proposal", id="viewer.switch"),
        Binding("o", "open_outside", "Open in image viewer", id="viewer.open"),
    ]
    #: how far one pan key moves, as a share of the region shown
    STEP = 0.25

    def __init__(
        self, task: Any, instance: Any, prediction: str | None = None, *, which: str = "instance", caption: str = "proposed"
    ) -> None:
        super().__init__()
        self.pxp_task, self.instance, self.prediction = task, instance, prediction
        self.which = which if prediction else "instance"
        self.caption = caption
        self.view = View()
        self._original: Any = None  # the decoded original image (decoded in the drawing thread)
        self._drag: tuple[int, int] | None = None
        #: the box of the original last shown and the size it was scaled to (zoomable pictures only), and its view
        self.shown: tuple[tuple[int, int, int, int], tuple[int, int]] | None = None
        self.shown_view: View | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="viewer-title")
        yield Picture(id="viewer-picture")
        yield Static(id="viewer-status")

    def on_mount(self) -> None:
        self._show()

    @property
    def zoomable(self) -> bool:
        """Whether the picture shown is an image of its own (an X-ray), zoomed by cropping the original."""
        return self.which == "instance" and self.pxp_task.original_picture(self.instance) is not None

    # -- drawing ----------------------------------------------------------------------------------
    def _show(self) -> None:
        task, instance, prediction = self.pxp_task, self.instance, self.prediction
        title = describe(task, instance)
        if self.which == "prediction":
            shown = visible(f"  {self.caption}: {prediction}", one_line=True)
            title = Content.assemble(Content.styled(visible(instance.name, one_line=True), "bold"), shown)
        self.query_one("#viewer-title", Static).update(title)
        picture = self.query_one(Picture)
        if self.zoomable:
            view = self.view
            picture.show(lambda surface: self._zoomed(view, surface.pixels), waiting="")
        elif self.which == "prediction":
            picture.show(lambda surface: task.draw_prediction(instance, prediction, surface))
        else:
            picture.show(lambda surface: task.draw_instance(instance, surface))
        self._status()

    def _zoomed(self, view: View, area: tuple[int, int]) -> Any:
        """The region of the original ``view`` shows, scaled to ``area`` pixels (runs in the picture's thread)."""
        from PIL import Image

        if self._original is None:
            import io

            image = Image.open(io.BytesIO(self.pxp_task.original_picture(self.instance)))
            image.load()
            self._original = image if image.mode in ("L", "RGB") else image.convert("RGB")
        box, size = view.crop(self._original.size, area)
        self.shown, self.shown_view = (box, size), view
        self.app.call_from_thread(self._status)
        return self._original.crop(box).resize(size, Image.Resampling.LANCZOS)

    def _status(self) -> None:
        # the way back first: at 80 columns the end of the line (the coordinates) is what is cut
        keys = "esc back · o open in image viewer"
        if self.prediction:
            keys += " · tab target/proposal"
        if not self.zoomable:
            text = f"{keys} · drawn for the whole screen"
        elif self.shown is None or self._original is None:
            text = f"{keys} · zoom {self.view.zoom:g}× · +/- zoom · arrows pan · 0 whole"
        else:
            (left, top, right, bottom), _ = self.shown
            width, height = self._original.size
            text = f"{keys} · zoom {self.view.zoom:g}× · +/- zoom · arrows pan · 0 whole · x {left}–{right} y {top}–{bottom} of {width}×{height}"
        self.query_one("#viewer-status", Static).update(Content(text))

    def _area(self) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """(image size, area in pixels) of the zoomable picture, once drawn."""
        surface = self.query_one(Picture).surface
        if self._original is None or surface is None:
            return None
        return self._original.size, surface.pixels

    # -- keys and mouse ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch":
            return bool(self.prediction)
        return True

    def action_close(self) -> None:
        self.dismiss()

    def action_zoom(self, steps: int) -> None:
        if not self.zoomable:
            self.notify("Zoom is for images; the molecule is drawn for the whole screen.", timeout=4)
            return
        self.view = self.view.zoomed(steps)
        sizes = self._area()
        if sizes:
            self.view = self.view.clamped(*sizes)
        self._show()

    def action_pan(self, dx: int, dy: int) -> None:
        sizes = self._area()
        if self.zoomable and sizes:
            self.view = self.view.panned(dx * self.STEP, dy * self.STEP, *sizes)
            self._show()

    def action_reset(self) -> None:
        self.view = View()
        self._show()

    def action_switch(self) -> None:
        if self.prediction:
            self.which = "prediction" if self.which == "instance" else "instance"
            self._show()

    def action_open_outside(self) -> None:
        open_outside(self, self.pxp_task, self.instance, self.prediction if self.which == "prediction" else None)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.zoomable:
            self.action_zoom(1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self.zoomable:
            self.action_zoom(-1)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.zoomable:
            self._drag = (event.screen_x, event.screen_y)
            self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        sizes = self._area()
        if self._drag is None or sizes is None:
            return
        surface = self.query_one(Picture).surface
        assert surface is not None
        cx, cy = event.screen_x - self._drag[0], event.screen_y - self._drag[1]
        if cx or cy:
            self._drag = (event.screen_x, event.screen_y)
            per_col, per_row = surface.pixels[0] / surface.cols, surface.pixels[1] / surface.rows
            self.view = self.view.dragged(cx * per_col, cy * per_row, *sizes)
            self._show()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._drag is not None:
            self._drag = None
            self.capture_mouse(False)
