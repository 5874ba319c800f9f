"""A spinner with the elapsed time, shown while an agent works (the machine thinking, a picture drawing)."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widgets import Static

from pxp_tui.app.css import beside

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Thinking(Static):
    """``⠙ offline is thinking… 2.4 s · escape cancels``; hidden when idle."""

    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.clock = clock
        self._label = ""
        self._started = 0.0
        self._timer: Timer | None = None
        self._frame = 0

    def on_mount(self) -> None:
        self.display = False

    @property
    def active(self) -> bool:
        return self._timer is not None

    def start(self, label: str) -> None:
        self.stop()
        self._label, self._started, self._frame = label, self.clock(), 0
        self.display = True
        self._tick()
        self._timer = self.set_interval(0.1, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = False

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self.update(f"{FRAMES[self._frame]} {self._label} {self.clock() - self._started:.1f} s")
