"""Half-cell pictures built in the drawing thread paint exactly what textual-image's half-cell widget paints."""

from __future__ import annotations

import pytest
from PIL import Image
from textual.app import App, ComposeResult
from textual.containers import Center
from textual.geometry import Region
from textual.widget import Widget

from pxp_tui.app.picture.halfcell import HalfcellView, halfcell_picture


def an_image(width: int, height: int) -> Image.Image:
    """Gradients and a bright square: every scaling mistake shows."""
    image = Image.new("RGB", (width, height))
    image.putdata([((x * 255) // width, (y * 255) // height, (x * y) % 256) for y in range(height) for x in range(width)])
    image.paste((255, 255, 255), (width // 3, height // 3, width // 2, height // 2))
    return image


class Frame(App[None]):
    CSS = ".frame { width: 1fr; height: 1fr; align: center middle; } .frame > * { width: auto; height: auto; }"

    def __init__(self, widget: Widget, size: tuple[int, int]) -> None:
        super().__init__()
        self.widget, self.frame_size = widget, size

    def compose(self) -> ComposeResult:
        with Center(classes="frame"):
            yield self.widget


async def painted(widget: Widget, cols: int, rows: int) -> list[list[tuple[str, object]]]:
    app = Frame(widget, (cols, rows))
    async with app.run_test(size=(cols, rows)) as pilot:
        await pilot.pause()
        size = widget.size
        lines = widget.render_lines(Region(0, 0, size.width, size.height))
        return [[(s.text, s.style) for s in line] for line in lines]


@pytest.mark.parametrize(
    ("pixels", "cols", "rows"), [((256, 256), 58, 29), ((630, 562), 80, 22), ((400, 120), 20, 10), ((90, 300), 7, 3)]
)
async def test_the_lines_are_those_textual_image_paints(pixels: tuple[int, int], cols: int, rows: int) -> None:
    from textual_image.widget import HalfcellImage

    image = an_image(*pixels)
    picture = halfcell_picture(image, cols, rows)
    ours = await painted(HalfcellView(picture), cols, rows)
    theirs = await painted(HalfcellImage(image), cols, rows)
    assert len(ours) == len(theirs) == picture.cells[1] > 0
    assert ours == theirs
    assert picture.size == pixels  # what the picture viewer reads as the image's size


def test_an_empty_frame_makes_an_empty_picture() -> None:
    picture = halfcell_picture(an_image(10, 10), 0, 0)
    assert picture.lines == () and picture.cells == (0, 0)
