"""A minimal drawing of a session's instance for the replay: the X-ray or the molecule, and its data.

Everything comes from the blackboard (the image bytes, the SMILES), so a copy of the file is enough.
Drawing and decoding run in a thread. (The live app's instance widget, when it is on the main
branch, can replace this one.)
"""

from __future__ import annotations

import io
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from pxp_tui.app.review.styles import beside
from pxp_tui.tasks.base import Instance

#: pixels per terminal cell the picture is drawn for (half-cell blocks show 1 x 2; graphics more)
CELL = (4, 8)


def picture(instance: Instance, size: tuple[int, int]) -> Any:
    """A PIL image of the instance: its stored image, else its SMILES drawn by RDKit; None if neither."""
    from PIL import Image

    if instance.image is not None:
        image = Image.open(io.BytesIO(instance.image))
        image.load()
        return image
    if instance.input:
        from rdkit import Chem

        mol = Chem.MolFromSmiles(instance.input)
        if mol is not None:
            return Image.open(io.BytesIO(molecule_png(mol, size)))
    return None


def molecule_png(mol: Any, size: tuple[int, int]) -> bytes:
    """``mol`` drawn light on dark, with bonds thick enough to survive a few dozen terminal cells."""
    from rdkit.Chem.Draw import rdMolDraw2D

    scale = max(1.0, 480 / max(size))
    canvas = rdMolDraw2D.MolDraw2DCairo(round(size[0] * scale), round(size[1] * scale))
    options = canvas.drawOptions()
    rdMolDraw2D.SetDarkMode(options)
    options.bondLineWidth = max(2, round(2 * scale))
    options.scaleBondWidth = False
    options.minFontSize = max(10, round(8 * scale))
    canvas.DrawMolecule(mol)
    canvas.FinishDrawing()
    return canvas.GetDrawingText()


def details(instance: Instance) -> Text:
    text = Text(instance.name, style="bold")
    text.append(f"\n{instance.dataset} · {instance.key} · {instance.split}", style="dim")
    if instance.input:
        text.append(f"\n{instance.input}")
    if instance.reference_prediction:
        text.append("\nreference  ", style="dim")
        text.append(instance.reference_prediction)
    return text


class InstanceSketch(Vertical):
    """The instance's picture above its name, key, input and reference prediction."""

    DEFAULT_CSS = beside(__file__)

    def __init__(self, instance: Instance, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.instance = instance

    def compose(self) -> ComposeResult:
        yield Vertical(Static("drawing…", id="sketch-status"), id="sketch-frame")
        yield Static(details(self.instance), id="sketch-details")

    def on_mount(self) -> None:
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        frame = self.query_one("#sketch-frame")
        cols, rows = max(frame.size.width, 8), max(frame.size.height, 4)
        self.draw((cols * CELL[0], rows * CELL[1]))

    @work(thread=True, exclusive=True, group="sketch")
    def draw(self, size: tuple[int, int]) -> None:
        try:
            image = picture(self.instance, size)
            status = "" if image is not None else "no picture"
        except Exception as exc:  # noqa: BLE001 - a picture is a nicety: say why there is none
            image, status = None, f"no picture: {exc}"
        widget: Widget | None = None
        if image is not None:
            from textual_image.widget import Image as TerminalImage

            widget = TerminalImage(image, id="sketch-image")
        self.app.call_from_thread(self._display, widget, status)

    def _display(self, widget: Widget | None, status: str) -> None:
        status_line = self.query_one("#sketch-status", Static)
        status_line.update(status)
        status_line.display = bool(status)
        if widget is not None:
            self.query_one("#sketch-frame").mount(widget)
