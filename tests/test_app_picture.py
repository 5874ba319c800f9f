"""The picture widget: drawing problems are said in its place, never a crash of the app."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from pxp_tui.app.widgets.picture import Picture

from .app_helpers import wait_for


class OnePicture(App):
    def compose(self) -> ComposeResult:
        yield Picture(caption="test", id="picture")


async def test_bytes_that_are_not_an_image_say_no_picture_and_the_app_goes_on(monkeypatch) -> None:
    monkeypatch.setenv("PXP_IMAGES", "halfcell")
    app = OnePicture()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = app.query_one(Picture)
        picture.show(lambda size: b"not an image")
        status = picture.query_one(".picture-status", Static)
        await wait_for(pilot, lambda: "no picture:" in str(status.render()), "the reason in place of the picture")
        assert app.is_running and not picture.query(".picture-image")
