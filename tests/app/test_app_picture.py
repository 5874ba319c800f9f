"""The picture widget: drawing problems are said in its place, never a crash of the app."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from pxp_harness.app_helpers import wait_for
from pxp_tui.app.picture.widget import Picture


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


async def test_a_picture_removed_before_its_redraw_or_its_drawing_ends_shows_nothing_and_raises_nothing() -> None:
    """A resize timer or a drawing thread can end after the picture left the screen (the app closing)."""
    from PIL import Image
    from textual.app import App

    from pxp_tui.app.picture.widget import Picture
    from pxp_tui.tasks.pictures import Surface

    class Host(App[None]):
        def compose(self):
            yield Picture("a picture", id="picture")

    app = Host()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = app.query_one(Picture)
        picture.show(lambda surface: Image.new("RGB", (8, 8)), key=("removed", 1))
        await pilot.pause()
        await picture.remove()
        picture._redraw()  # what the resize timer would call
        picture._display(None, "drawn too late", Surface(10, 4, (10, 8), "halfcell"), None)
        await pilot.pause()
        assert app.is_running and not app.query(Picture)


async def test_a_drawing_that_ends_while_the_picture_is_taken_down_raises_nothing() -> None:
    """The app closing removes a picture's parts before the picture: a drawing ending then must not fail the app
    (it did, once in CI: "No nodes match '.picture-status'")."""
    from pxp_tui.tasks.pictures import Surface

    app = OnePicture()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = app.query_one(Picture)
        await picture.query_one(".picture-status").remove()  # the parts go first, the picture is still attached
        assert picture.is_attached
        picture._display(None, "drawn too late", Surface(10, 4, (10, 8), "halfcell"), None)
        await picture.query_one(".picture-frame").remove()
        picture._draw_fn = lambda surface: None  # a picture was shown: a resize timer firing now redraws it
        picture._redraw()
        await pilot.pause()
        assert app.is_running


async def test_a_picture_shown_before_its_parts_are_composed_shows_its_caption_and_is_drawn(monkeypatch) -> None:
    """A full-screen viewer shows its picture from its own on_mount; the picture's parts may not be there yet
    (once in CI the X-ray viewer failed the app with "No nodes match '.picture-status'")."""
    from PIL import Image

    monkeypatch.setenv("PXP_IMAGES", "halfcell")

    class Host(App[None]):
        def on_mount(self) -> None:
            picture = Picture(id="picture")  # not composed: show() comes first, as from a screen's on_mount
            picture.show(lambda surface: Image.new("RGB", (16, 16), "white"), caption="the target", waiting="drawing…")
            self.mount(picture)

    app = Host()
    async with app.run_test(size=(40, 12)) as pilot:
        picture = await wait_for(pilot, lambda: app.query(Picture).first() if app.query(Picture) else None, "mounted")
        caption = picture.query_one(".picture-caption", Static)
        assert str(caption.render()) == "the target" and caption.display
        await wait_for(pilot, lambda: picture.query(".picture-image"), "the picture drawn once laid out")
        assert not picture.query_one(".picture-status", Static).display  # "drawing…" gone with the picture
        assert app.is_running
