"""The instance of a session, drawn: its metadata, the X-ray or the molecule, and a proposed prediction.

Reusable wherever an instance is shown (the live session, the review screens): give it a task and an
instance, and optionally a prediction to draw (for DRUG, the reaction reactants -> target). A click
on a picture shows it full-screen; screens that show an instance add :func:`picture_bindings` and
:class:`PictureActions` for the same from the keyboard, and for opening it in the desktop's viewer.
"""

from __future__ import annotations

import os
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.picture.cache import draw_ahead, instance_key, prediction_key
from pxp_tui.app.picture.graphics import in_browser, renderer
from pxp_tui.app.picture.instance_info import describe, graphics_note, open_outside
from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.shared.css import beside

#: an X-ray shown in fewer pixels than this in height opens full-screen where the view asks for it (the session)
SMALL = 200

#: said when the machine's message comes while the X-ray is full-screen by itself: the session is shown again
BACK_FOR_THE_MESSAGE = "The machine's message is in: back to the session. f shows the picture full-screen again."


def opens_full_screen() -> bool:
    """Whether a small X-ray opens full-screen: ``PXP_FULL_SCREEN=auto`` (the default), not ``never``."""
    return os.environ.get("PXP_FULL_SCREEN", "auto").strip().lower() not in ("never", "off", "no", "0")


def picture_bindings(screen: str) -> list[Binding]:
    """The keys of a screen that shows an instance (ids ``<screen>.picture``, ``<screen>.open_picture``)."""
    return [
        Binding("f", "picture", "Picture full-screen", id=f"{screen}.picture"),
        Binding("v", "open_picture", "Open in new tab" if in_browser() else "Open in image viewer", id=f"{screen}.open_picture"),
    ]


class InstanceView(Vertical):
    """``task``'s picture and metadata of ``instance``, and of ``prediction`` when there is one."""

    DEFAULT_CSS = beside(__file__)

    def __init__(
        self,
        task: Any = None,
        instance: Any = None,
        prediction: str | None = None,
        *,
        caption: str = "proposed",
        full_screen_when_small: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        #: open an X-ray full-screen as it is shown, when the pane gives it fewer than :data:`SMALL` pixels in height:
        #: once in the view's life (a run's session screen), and only while the instance has no proposal yet
        self.full_screen_when_small = full_screen_when_small
        self._opened_by_itself = False  # once: afterwards the picture is full-screen only when the expert asks
        self._full_by_itself: Any = None  # the full-screen picture opened so, while it may still be on screen
        self.pxp_task = task
        self.instance = instance
        self.prediction = prediction
        self._caption = caption
        self._drawn: tuple[Any, Any] | None = None  # the (task, instance) whose picture is shown

    def compose(self) -> ComposeResult:
        yield Static(id="instance-meta")
        note = Static(id="instance-note")
        note.display = False
        yield note
        yield Picture(id="instance-picture")
        yield Picture(id="prediction-picture")

    def on_mount(self) -> None:
        if self.pxp_task is not None and self.instance is not None:
            self.show(self.pxp_task, self.instance, self.prediction, self._caption)
        else:
            self.query_one("#prediction-picture").display = False

    def show(self, task: Any, instance: Any, prediction: str | None = None, caption: str = "proposed") -> None:
        """Show ``instance`` (redrawn only if it changed) and ``prediction`` (None hides it)."""
        self.pxp_task, self.instance = task, instance
        if self._drawn != (task, instance):
            self._drawn = (task, instance)
            meta = describe(task, instance)
            if in_browser() and renderer() == "halfcell" and task.original_picture(instance) is not None:  # blocks here
                meta = Content.assemble(meta, Content.styled(" · v: full size in a new tab", "$text-muted"))
            self.query_one("#instance-meta", Static).update(meta)
            note = graphics_note(task, instance)
            self.query_one("#instance-note", Static).update(note or "")
            self.query_one("#instance-note").display = bool(note)
            self.query_one("#instance-picture", Picture).show(
                lambda surface: task.draw_instance(instance, surface), key=instance_key(task, instance)
            )
        self.show_prediction(prediction, caption)

    def show_prediction(self, prediction: str | None, caption: str = "proposed") -> None:
        """Draw ``prediction`` for the current instance (if the task draws predictions), or hide it. A picture that
        opened full-screen by itself goes back to the view, so that what proposed it is seen."""
        task, instance = self.pxp_task, self.instance
        self.prediction = prediction
        full, self._full_by_itself = self._full_by_itself, None
        if prediction and full is not None and self.app.screen is full:
            full.dismiss()
            self.notify(BACK_FOR_THE_MESSAGE, timeout=6)
        self._caption = caption
        picture = self.query_one("#prediction-picture", Picture)
        if not prediction or task is None or not task.draws_predictions:
            picture.display = False
            return
        picture.display = True
        picture.show(
            lambda surface: task.draw_prediction(instance, prediction, surface),
            caption=caption,
            key=prediction_key(task, instance, prediction),
        )

    def draw_ahead(self, task: Any, instance: Any, prediction: str) -> None:
        """Draw ``prediction`` of ``instance`` now, in a thread, for when :meth:`show_prediction` shows it
        (the next session's first proposal, while the last session's outcome is read)."""
        if prediction and task is not None and task.draws_predictions:
            picture = self.query_one("#prediction-picture", Picture)
            draw_ahead(
                picture, prediction_key(task, instance, prediction), lambda s: task.draw_prediction(instance, prediction, s)
            )

    # -- the picture full-screen, or in the desktop's viewer --------------------------------------
    def on_picture_drawn(self, event: Picture.Drawn) -> None:
        """An X-ray the pane shows in fewer than :data:`SMALL` pixels in height opens full-screen by itself: once, and
        only before a proposal for it is shown (it would hide it)."""
        event.stop()
        task, instance = self.pxp_task, self.instance
        if (
            not self.full_screen_when_small
            or not opens_full_screen()
            or event.picture.id != "instance-picture"
            or self._opened_by_itself
            or self.prediction
            or task is None
            or task.original_picture(instance) is None
            or self.screen is not self.app.screen
            or getattr(self.screen, "watched", False)  # a proxy answering: the expert watches the whole screen
        ):
            return
        (width, height), (iw, ih) = event.surface.pixels, event.size
        if min(height, ih * width / iw) < SMALL:
            self._opened_by_itself = True
            self._full_by_itself = self.open_full()

    def on_picture_clicked(self, event: Picture.Clicked) -> None:
        event.stop()
        self.open_full("prediction" if event.picture.id == "prediction-picture" else "instance")

    def open_full(self, which: str = "instance") -> Any:
        """Show the instance's picture (or, with ``which="prediction"``, the prediction's) on the whole screen; returns
        that screen (None if there is no picture yet)."""
        if self.pxp_task is None or self.instance is None:
            self.notify("No picture yet.", severity="warning")
            return None
        from pxp_tui.app.picture.viewer import PictureScreen

        prediction = self.prediction if self.query_one("#prediction-picture").display else None
        full = PictureScreen(self.pxp_task, self.instance, prediction, which=which, caption=self._caption)
        self.app.push_screen(full)
        return full

    def open_outside(self) -> None:
        """Open the instance's picture in the desktop's image viewer (or say where it was written), or a browser tab."""
        if self.pxp_task is None or self.instance is None:
            self.notify("No picture yet.", severity="warning")
            return
        open_outside(self, self.pxp_task, self.instance, None)


class PictureActions:
    """The actions of :func:`picture_bindings`, for a screen with an :class:`InstanceView`."""

    def action_picture(self) -> None:
        views = self.query(InstanceView)  # type: ignore[attr-defined]
        if views:
            views.first().open_full()

    def action_open_picture(self) -> None:
        views = self.query(InstanceView)  # type: ignore[attr-defined]
        if views:
            views.first().open_outside()
