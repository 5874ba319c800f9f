"""A spinner with the elapsed time, shown while an agent works (the machine thinking, a picture drawing).

It appears only once the work has taken :data:`APPEAR_AFTER` seconds: a fast machine's reply (a few
milliseconds offline) would otherwise show and hide it within a frame or two, two layouts of the screen
for nothing at every turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from pxp_tui.app.shared.css import beside
from pxp_tui.common.visible import visible

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

#: seconds of work before the spinner shows
APPEAR_AFTER = 0.15


class Thinking(Static):
    """``⠙ offline is thinking… 2.4 s · ctrl+g cancels``; hidden when idle."""

    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.clock = clock
        self._label = ""
        self._hint = ""
        self._started = 0.0
        self._timer: Timer | None = None
        self._appear: Timer | None = None
        self._frame = 0

    def on_mount(self) -> None:
        self.display = False

    @property
    def active(self) -> bool:
        return self._timer is not None

    def start(self, label: str, hint: str = "") -> None:
        """Show ``label`` with the time since now (and ``hint``, what the expert may do, after it)."""
        self.stop()
        self._label, self._hint, self._started, self._frame = label, hint, self.clock(), 0
        self._tick()  # the text is ready (and readable) at once; the widget shows after APPEAR_AFTER
        self._timer = self.set_interval(0.1, self._tick)
        self._appear = self.set_timer(APPEAR_AFTER, self._show)

    def _show(self) -> None:
        if self.active:  # a timer that fired just before stop() may still call this: stay hidden then
            self.display = True

    def stop(self) -> None:
        for timer in (self._timer, self._appear):
            if timer is not None:
                timer.stop()
        self._timer = self._appear = None
        if self.display:
            self.display = False

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        hint = f" · {self._hint}" if self._hint else ""
        text = visible(f"{FRAMES[self._frame]} {self._label} {self.clock() - self._started:.1f} s{hint}", one_line=True)
        # hidden, or the same length (a spinner's step, a tenth of a second): no layout needed
        self.update(Content(text), layout=self.display and len(text) != len(str(self.content)))
