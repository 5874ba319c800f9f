"""An instance's metadata as one paragraph, and its picture opened in the desktop's image viewer (or a browser tab).

Shared by the instance view and the full-screen picture (which the instance view opens).
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from pxp_tui.common.visible import visible


def describe(task: Any, instance: Any) -> Content:
    """The instance's name in bold, then its other metadata (formula, weight, SMILES...), as one paragraph."""
    info = dict(task.describe(instance))
    name = info.pop("name", None) or getattr(instance, "name", str(instance.id))
    parts = [
        Content.assemble((f"{visible(str(key))} ", "$text-muted"), visible(str(value))) for key, value in info.items() if value
    ]
    return Content.assemble(Content.styled(visible(str(name), one_line=True), "bold"), "  ", Content(" · ").join(parts))


def graphics_note(task: Any, instance: Any) -> Content | None:
    """The terminal's limits for this instance's picture, said once in its header: for an image of its own (an
    X-ray) drawn in half-cell blocks, why and what shows pixels (:func:`~pxp_tui.app.picture.graphics.coarse_note`)."""
    if task is None or instance is None or task.original_picture(instance) is None:
        return None
    from pxp_tui.app.picture.graphics import coarse_note

    note = coarse_note()  # it quotes what tmux and the terminal say of themselves: text, never markup or escapes
    return Content(visible(note)) if note else None


def open_outside(node: Any, task: Any, instance: Any, prediction: str | None) -> None:
    """Write the picture (the original image, or a large drawing) to a file and open it, in a thread; ``node`` notifies.

    In a browser tab (``pxp serve``) the picture opens in a new tab of the browser instead, at full resolution.
    """
    app = node.app

    def deliver(file: Any, name: str, mime_type: str) -> None:
        app.call_from_thread(app.deliver_binary, file, save_filename=name, open_method="browser", mime_type=mime_type)

    def run() -> None:
        from pxp_tui.app.picture import desktop

        if app.is_web:
            outcome = desktop.open_in_tab(task, instance, prediction, deliver)
        else:
            outcome = desktop.open_picture(task, instance, prediction)
        severity = "information" if outcome.opened else "warning"
        node.app.call_from_thread(node.notify, outcome.message, severity=severity, timeout=15, markup=False)

    node.run_worker(run, thread=True, group="open-picture")
