"""The instance of a session, drawn: the X-ray or the molecule, its metadata, and a proposed prediction.

Reusable wherever an instance is shown (the live session, the review screens): give it a task and an
instance, and optionally a prediction to draw (for DRUG, the reaction reactants -> target).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from pxp_tui.app.css import beside
from pxp_tui.app.widgets.picture import Picture


def describe(task: Any, instance: Any) -> Content:
    """The instance's name in bold, then its other metadata (formula, weight, SMILES...) one per line."""
    info = dict(task.describe(instance))
    name = info.pop("name", None) or getattr(instance, "name", str(instance.id))
    lines = [Content.styled(str(name), "bold")]
    lines += [Content.assemble((f"{key} ", "$text-muted"), str(value)) for key, value in info.items() if value]
    return Content("\n").join(lines)


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
        id: str | None = None,
        classes: str | None = None,
    ):
        super().__init__(id=id, classes=classes)
        self.pxp_task = task
        self.instance = instance
        self.prediction = prediction
        self._caption = caption
        self._drawn: tuple[Any, Any] | None = None  # the (task, instance) whose picture is shown

    def compose(self) -> ComposeResult:
        with Horizontal(id="instance-top"):
            yield Picture(id="instance-picture")
            yield Static(id="instance-meta")
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
            self.query_one("#instance-meta", Static).update(describe(task, instance))
            self.query_one("#instance-picture", Picture).show(lambda size: task.draw_instance(instance, size))
        self.show_prediction(prediction, caption)

    def show_prediction(self, prediction: str | None, caption: str = "proposed") -> None:
        """Draw ``prediction`` for the current instance (if the task draws predictions), or hide it."""
        task, instance = self.pxp_task, self.instance
        self.prediction = prediction
        picture = self.query_one("#prediction-picture", Picture)
        if not prediction or task is None or not task.draws_predictions:
            picture.display = False
            return
        picture.display = True
        picture.show(lambda size: task.draw_prediction(instance, prediction, size), caption=caption)
