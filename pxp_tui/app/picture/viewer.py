"""A picture on the whole screen: the X-ray with a radiology viewer's reading tools, or the molecule and the
reaction drawn large.

An X-ray is shown by cropping the original image (Pillow) and scaling the crop to the pixels the terminal
shows, so a radiologist zooming on a lung sees the file's own detail at every renderer (Sixel, kitty
graphics, half-cell blocks). The tools: fit (0) and 1:1 (z: one image pixel per screen pixel, the crop
given to the terminal unscaled, in whole cells), the physical size (Z: the pixel spacing at the screen's
resolution the expert states, :mod:`~pxp_tui.app.picture.physical`), zoom steps (+ -) and pan (arrows,
h j k l, a drag, the wheel), window/level (brightness { }, contrast , .; :mod:`~pxp_tui.app.picture.tone`) and invert (i), d
resetting the window; the bottom line gives the current values. Molecules are drawn again for the whole
screen. Escape (or f, the key that opened it) goes back to where the expert was.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from pxp_tui.app.picture.graphics import in_browser
from pxp_tui.app.picture.instance_info import describe, graphics_note, open_outside
from pxp_tui.app.picture.physical import Physical, no_dpi, screen_dpi
from pxp_tui.app.picture.tone import Tone
from pxp_tui.app.picture.widget import Picture, unscaled
from pxp_tui.app.picture.zoom import View, exact_scale, in_whole_cells, in_whole_cells_at
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.common.visible import visible
from pxp_tui.tasks.grey_levels import DEEP_MODES, EIGHT_BIT, Levels, levels_of, spacing_text
from pxp_tui.tasks.pictures import Surface


def scale_words(view: View, image: tuple[int, int], area: tuple[int, int], physical: Physical | None = None) -> str:
    """How the status line names the view's scale: ``fit``, ``1:1``, ``3:1``, ``1:2``, ``zoom 1.5×`` (of the fit), or
    ``physical`` 's words where the view holds its scales."""
    if physical is not None and view.scales == physical.scales:
        return physical.words()
    scale = exact_scale(view, image, area)
    if scale is not None:
        return f"{scale:g}:1" if scale >= 1 else f"1:{round(1 / scale)}"
    return "fit" if abs(view.zoom - 1) < 1e-9 else f"zoom {view.zoom:.3g}×"


class PictureScreen(Screen):
    """``instance``'s picture (``which="instance"``) or ``prediction``'s (``"prediction"``), full-screen."""

    CSS_PATH = "viewer.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back", id="viewer.close"),
        # f again: the key that opened the picture full-screen leaves it (one meaning: full-screen on or off)
        Binding("f", "leave_full_screen", "Leave full-screen", id="viewer.picture", show=False),
        Binding("0,home", "fit", "Fit", id="viewer.fit"),
        Binding("z", "actual", "Actual size (1:1)", id="viewer.actual"),
        Binding("Z", "physical", "Physical size", id="viewer.physical", show=False),
        Binding("plus,equals_sign", "zoom(1)", "Zoom in", id="viewer.zoom_in"),
        Binding("minus", "zoom(-1)", "Zoom out", id="viewer.zoom_out"),
        Binding("left,h", "pan(-1, 0)", "Pan left", id="viewer.left", show=False),
        Binding("right,l", "pan(1, 0)", "Pan right", id="viewer.right", show=False),
        Binding("up,k", "pan(0, -1)", "Pan up", id="viewer.up", show=False),
        Binding("down,j", "pan(0, 1)", "Pan down", id="viewer.down", show=False),
        Binding("right_curly_bracket", "brightness(1)", "Brighter", id="viewer.brighter"),
        Binding("left_curly_bracket", "brightness(-1)", "Darker", id="viewer.darker"),
        Binding("full_stop", "contrast(1)", "Contrast+", id="viewer.more_contrast"),
        Binding("comma", "contrast(-1)", "Contrast-", id="viewer.less_contrast"),
        Binding("i", "invert", "Invert", id="viewer.invert"),
        Binding("d", "reset_tone", "Default window", id="viewer.reset_tone"),
        Binding("tab", "switch", "Target / proposal", id="viewer.switch"),
        Binding("v", "open_outside", "Open in new tab" if in_browser() else "Open in image viewer", id="viewer.open_picture"),
    ]
    #: the actions of the reading tools, for X-rays only
    TOOLS = frozenset({"fit", "actual", "physical", "zoom", "pan", "brightness", "contrast", "invert", "reset_tone"})
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
        self.tone = Tone()
        self.physical: Physical | None = None  # the physical size last asked for (its spacing and the screen's dpi)
        self._original: Any = None  # the decoded original image (decoded in the drawing thread)
        self._levels: Levels = EIGHT_BIT  # how its grey values read (a DICOM instance's: more than 8 bits)
        self._drag: tuple[int, int] | None = None
        #: the box of the original last shown and the size it was scaled to (zoomable pictures only), and its view
        self.shown: tuple[tuple[int, int, int, int], tuple[int, int]] | None = None
        self.shown_view: View | None = None
        self.shown_tone: Tone | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="viewer-title")
        note = Static(id="viewer-note")
        note.display = False
        yield note
        yield Picture(id="viewer-picture")
        yield Static(id="viewer-status")
        yield FittingFooter()

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
            view, tone = self.view, self.tone
            picture.show(lambda surface: self._zoomed(view, tone, surface), waiting="")
        elif self.which == "prediction":
            picture.show(lambda surface: task.draw_prediction(instance, prediction, surface))
        else:
            picture.show(lambda surface: task.draw_instance(instance, surface))
        self._status()

    def _zoomed(self, view: View, tone: Tone, surface: Surface) -> Any:
        """The region of the original ``view`` shows, scaled to the surface's pixels, in ``tone`` (runs in the
        picture's thread). At 1:1 the crop is given unscaled, in whole cells (the terminal scales nothing)."""
        from PIL import Image

        if self._original is None:
            import io

            image = Image.open(io.BytesIO(self.pxp_task.original_picture(self.instance)))
            image.load()
            self._levels = levels_of(image)
            if image.mode in DEEP_MODES:  # kept at full depth, as 32-bit floats Pillow scales
                self._original = (image if image.mode in ("I", "F") else image.convert("I")).convert("F")
            else:
                self._original = image if image.mode in ("L", "RGB") else image.convert("RGB")
        image, area = self._original.size, surface.pixels
        if view.scales is not None and not surface.coarse:
            return self._physical_size(view, tone, surface)
        scale = None if surface.coarse else exact_scale(view, image, area)
        if scale is None:  # the fit, or a scale between: the crop scaled to the area, the terminal fitting it
            box, size = view.crop(image, area)
            self.shown, self.shown_view, self.shown_tone = (box, size), view, tone
            self.app.call_from_thread(self._status)
            crop = self._original.crop(box)
            return tone.apply(crop if crop.size == size else crop.resize(size, Image.Resampling.LANCZOS), self._levels)
        # 1:1, 2:1, 1:2...: each image pixel a whole number of screen pixels (or the reverse), in whole cells, the
        # picture shown at its own size (the terminal scales nothing); black around it where it is smaller
        cell = (area[0] // surface.cols, area[1] // surface.rows)
        box, size, cells_size = in_whole_cells_at(view, scale, image, area, cell)
        self.shown, self.shown_view, self.shown_tone = (box, cells_size), view, tone
        self.app.call_from_thread(self._status)
        crop = tone.apply(self._original.crop(box), self._levels)
        if scale > 1:
            crop = crop.resize(size, Image.Resampling.NEAREST)  # each pixel k x k: an image pixel stays one
        elif scale < 1:
            crop = crop.reduce(round(1 / scale))  # k x k pixels averaged into one
        shown = Image.new(crop.mode, cells_size, 0)
        shown.paste(crop, ((cells_size[0] - crop.width) // 2, (cells_size[1] - crop.height) // 2))
        return unscaled(shown, (cells_size[0] // cell[0], cells_size[1] // cell[1]))

    def _physical_size(self, view: View, tone: Tone, surface: Surface) -> Any:
        """The view at its scales across and down (the physical size): the crop resampled to them, in whole cells, the
        terminal scaling nothing (picture's thread)."""
        from PIL import Image

        assert view.scales is not None
        cell = (surface.pixels[0] // surface.cols, surface.pixels[1] // surface.rows)
        box, size, cells_size = in_whole_cells(view, view.scales, self._original.size, surface.pixels, cell)
        self.shown, self.shown_view, self.shown_tone = (box, cells_size), view, tone
        self.app.call_from_thread(self._status)
        crop = tone.apply(self._original.crop(box), self._levels)
        if crop.size != size:
            crop = crop.resize(size, Image.Resampling.LANCZOS)
        shown = Image.new(crop.mode, cells_size, 0)
        shown.paste(crop, ((cells_size[0] - crop.width) // 2, (cells_size[1] - crop.height) // 2))
        return unscaled(shown, (cells_size[0] // cell[0], cells_size[1] // cell[1]))

    def on_picture_drawn(self, event: Picture.Drawn) -> None:
        """The first picture shown: the status names its scale (the picture's size on the screen known only now)."""
        event.stop()
        self._status()

    def _status(self) -> None:
        note = graphics_note(self.pxp_task, self.instance) if self.zoomable else None
        shown_note = self.query_one("#viewer-note", Static)
        shown_note.update(note or "")
        shown_note.display = bool(note)
        if not self.zoomable:
            text = "drawn for the whole screen"
        else:
            sizes = self._area()
            scale = scale_words(self.view, *sizes, self.physical) if sizes else f"zoom {self.view.zoom:.3g}×"
            tone = self.tone.describe(self._levels)
            if self._levels.spacing is not None:
                tone += f" · pixel {spacing_text(self._levels.spacing)}"
            text = f"{scale} · {tone}"
            if self.shown is not None and self._original is not None:
                (left, top, right, bottom), _ = self.shown
                width, height = self._original.size
                text = f"{scale} · x {left}–{right} y {top}–{bottom} of {width}×{height} · {tone} · arrows pan"
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
        if action in self.TOOLS:
            return self.zoomable or action == "zoom"  # zooming a molecule says why it is not zoomed
        return True

    def action_close(self) -> None:
        self.dismiss()

    def action_leave_full_screen(self) -> None:
        self.dismiss()

    def action_zoom(self, steps: int) -> None:
        if not self.zoomable:
            self.notify("Zoom is for images; the molecule is drawn for the whole screen.", timeout=4)
            return
        sizes = self._area()
        surface = self.query_one(Picture).surface
        # exact scales where the terminal draws pixels; in half-cell blocks (coarse) no scale is exact: plain levels
        exact = sizes if sizes is not None and surface is not None and not surface.coarse else None
        self.view = self.view.zoomed(steps, *(exact or ()))
        if sizes:
            self.view = self.view.clamped(*sizes)
        self._show()

    def action_fit(self) -> None:
        self.view = View()
        self._show()

    def action_actual(self) -> None:
        """1:1: one pixel of the image per pixel of the screen (per half cell with half-cell blocks)."""
        sizes = self._area()
        if sizes:
            self.view = self.view.actual(*sizes).clamped(*sizes)
            self._show()

    def action_physical(self) -> None:
        """The physical size: each image pixel ``spacing * dpi / 25.4`` screen pixels, across and down. Where the
        image has no pixel spacing, the screen's resolution is not stated (or not a resolution), or the terminal draws
        half-cell blocks, a notice says why and the view stays as it is."""
        sizes = self._area()
        surface = self.query_one(Picture).surface
        if sizes is None or surface is None:
            self.notify("The picture is not drawn yet.", severity="warning", timeout=4)
            return
        if surface.coarse:
            self.notify(
                "Physical size needs the picture in pixels: this terminal shows it in half-cell blocks, whose size on the "
                "screen says nothing of the image's. A Sixel or kitty terminal, or pxp serve, draws pixels.",
                severity="warning",
                timeout=8,
            )
            return
        spacing = self._levels.spacing
        if spacing is None:
            self.notify(
                "Physical size needs the image's pixel spacing: this image has none (a DICOM file's PixelSpacing or "
                "ImagerPixelSpacing gives it).",
                severity="warning",
                timeout=8,
            )
            return
        try:
            dpi = screen_dpi()
        except ValueError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        if dpi is None:
            self.notify(no_dpi(), severity="warning", timeout=10)
            return
        self.physical = Physical(spacing, dpi, at_detector=self._levels.spacing_tag == "ImagerPixelSpacing")
        self.view = self.view.at_scales(self.physical.scales).clamped(*sizes)
        self._show()

    def action_brightness(self, steps: int) -> None:
        self.tone = self.tone.brighter(steps)
        self._show()

    def action_contrast(self, steps: int) -> None:
        self.tone = self.tone.contrast(steps)
        self._show()

    def action_invert(self) -> None:
        self.tone = self.tone.invert()
        self._show()

    def action_reset_tone(self) -> None:
        self.tone = Tone()
        self._show()

    def action_pan(self, dx: int, dy: int) -> None:
        sizes = self._area()
        if self.zoomable and sizes:
            self.view = self.view.panned(dx * self.STEP, dy * self.STEP, *sizes)
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
