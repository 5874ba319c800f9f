"""What one event changes on the session screen is painted in one frame, its header and footer with it.

Textual paints a screen on a timer, from what its widgets have told it: a widget tells the screen of a new
text, size or style when it is next idle, each in its own task. A frame painted between two of those shows
part of an event's changes: the expert's turn in the answer pane under the machine's keys in the footer, a
session's outcome under the last turn's header. So each event the screen shows holds the screen's frames
(Textual's ``batch_update``) until every widget has told it what changed (its messages handled), for at most
:data:`PATIENCE` looks a millisecond apart. Nothing waits on the hold: the screen's state and its widgets
change at once; only their painting waits, a few milliseconds.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from pxp_tui.app.shared.textual_internals import has_unhandled_messages

#: how many times (a millisecond apart) a hold looks for the widgets' reports before it paints anyway
PATIENCE = 30

F = TypeVar("F", bound=Callable[..., Any])


class SameFrame:
    """The frames of ``screen``, held from :meth:`hold` until its widgets have reported their changes."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self._frames: contextlib.ExitStack | None = None
        self._looks = 0

    @property
    def held(self) -> bool:
        return self._frames is not None

    def hold(self) -> None:
        """Paint nothing until what changes now has been told to the screen."""
        self._looks = PATIENCE
        if self._frames is None:
            self._frames = contextlib.ExitStack()
            self._frames.enter_context(self.screen.app.batch_update())
            self.screen.set_timer(0.001, self._look)

    def _look(self) -> None:
        if self._looks > 0 and any(not w.is_mounted or has_unhandled_messages(w) for w in self.screen.walk_children()):
            self._looks -= 1
            self.screen.set_timer(0.001, self._look)
            return
        frames, self._frames = self._frames, None
        if frames is not None:
            frames.close()
            # ending a batch does not paint: the screen paints when next idle, and a timer's callback is none of its
            # messages (without this the frame waited for the expert's next key)
            self.screen.check_idle()


def in_one_frame(handler: F) -> F:
    """A session screen's handler whose changes are painted in one frame (:class:`SameFrame`, ``screen.frame``)."""

    @functools.wraps(handler)
    def wrapper(screen: Any, *args: Any, **kwargs: Any) -> Any:
        screen.frame.hold()
        return handler(screen, *args, **kwargs)

    return cast(F, wrapper)
