"""The moments after the expert's send: the screen holds its frames until the machine's reply, briefly.

Between ctrl+s and the expert's next turn the app commits the answer, the engine asks the machine, and
the reply is committed and shown; each step changed the screen (the answer field disabled, the
message in the conversation, the reply, the field enabled again), and each change cost a frame: a
layout and a render of the whole screen, and a restyle of every field of the answer twice. With a
fast machine (the offline baseline answers in a few milliseconds) none of those frames is read by
anyone. So a send opens a hold of at most :data:`DEADLINE` seconds (the spinner's delay, 0.15 s)
(Textual's ``batch_update``: the screen changes, it is not repainted): if the reply (or the session's
outcome, or a stop) arrives within it, everything shows in one frame; if not, the hold ends at the
deadline and ``on_slow`` shows the wait (the answer disabled, the spinner), as before.

Nothing waits on the hold: what the engine commits is handled as it arrives, only painted later.

What the expert waits for (the reply, the outcome, their turn) is painted first; the panes beside it
(the metrics, the header's counts, the conversation's note of a session's end, the footer's keys) are
updated just after that frame (:meth:`ReplyWait.after_frame`), in the next one: at 160x48 they were a
third of the reply's frame.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from pxp_tui.app.session.widgets.thinking import APPEAR_AFTER
from pxp_tui.app.shared.textual_internals import has_unhandled_messages

#: seconds a send holds the frames at most: as long as the spinner waits before it shows
DEADLINE = APPEAR_AFTER

#: how many times (a millisecond apart) the end of a hold waits for the widgets it mounted
MOUNT_WAIT = 30

#: seconds after a hold that awaited nothing (an outcome) before the updates for the next frame run
AFTER_FRAME = 0.02


def _unreported(screen: Any, awaited: tuple[Any, ...]) -> bool:
    """Whether a widget of ``screen`` is not yet mounted, or one shown in ``awaited`` (and what they hold) has
    messages still to handle: Textual's widgets report a new content, size or style to their screen when
    idle, each in its own task. Painting before they have would split what the expert waits for over
    two frames (the conversation in one, the machine's pane in the next)."""
    if any(not widget.is_mounted for widget in screen.walk_children()):
        return True
    widgets = list(awaited)
    while widgets:
        widget = widgets.pop()
        if not widget.display:  # hidden, with what it holds: nothing of it is painted
            continue
        if has_unhandled_messages(widget):
            return True
        widgets.extend(widget.children)
    return False


class ReplyWait:
    """One send's hold on the screen's frames: :meth:`begin` at the send, :meth:`end` at the reply."""

    def __init__(self, node: Any, on_slow: Callable[[], None], deadline: float | None = None) -> None:
        self.node = node  # a widget or screen: its app's frames, its timers
        self.on_slow = on_slow
        self.deadline = deadline  # None: :data:`DEADLINE` at each send
        self._frames: contextlib.ExitStack | None = None
        self._timer: Any = None
        self._hold = 0  # which hold is open: a release that waited for mounts never ends a later one
        self._after: list[Callable[[], None]] = []  # updates for the frame after the hold's, in order

    @property
    def active(self) -> bool:
        return self._frames is not None

    def begin(self) -> None:
        """Hold the frames until :meth:`end`, or until the deadline (then ``on_slow``)."""
        self._stop_timer()
        self._close()
        self._hold += 1
        self._frames = contextlib.ExitStack()
        self._frames.enter_context(self.node.app.batch_update())
        self._timer = self.node.set_timer(DEADLINE if self.deadline is None else self.deadline, self._slow)

    def end(self, *awaited: Any) -> None:
        """The reply (or whatever ends the wait) is on the screen: paint it once the widgets it mounted (a
        message in the conversation, a picture) are mounted and the ``awaited`` widgets (what the expert
        waits for) have reported their changes, so that they are in the same frame. Does nothing if not
        holding."""
        self._stop_timer()
        self._release(self._hold, MOUNT_WAIT, awaited)

    def after_frame(self, update: Callable[[], None]) -> None:
        """``update()`` once the frame that ends the hold is painted; at once if there is no hold (and no
        earlier update still waits: they run in the order given)."""
        if self._frames is None and not self._after:
            update()
            return
        self._after.append(update)

    def flush(self) -> None:
        """Run the updates waiting for the hold's frame now (what comes next replaces what they show)."""
        after, self._after = self._after, []
        for update in after:
            update()

    def _flush_batched(self) -> None:
        with self.node.app.batch_update():
            self.flush()

    def _flush_on_timer(self) -> None:
        self._flush_batched()
        self.node.screen.check_idle()  # a timer's callback: the screen paints when next idle (see :meth:`_close`)

    def _release(self, hold: int, patience: int, awaited: tuple[Any, ...] = ()) -> None:
        if self._frames is None or hold != self._hold:
            return
        if patience > 0 and _unreported(self.node.screen, awaited):
            self.node.set_timer(0.001, lambda: self._release(hold, patience - 1, awaited))
            return
        self._close(reported=bool(awaited))

    def _close(self, reported: bool = False) -> None:
        """End the hold; ``reported``: the widgets that changed have told the screen (``end`` awaited them)."""
        frames, self._frames = self._frames, None
        if frames is not None:
            frames.close()
            if self._after and reported:  # run by the screen after its next frame (the hold's: something changed)
                self.node.call_after_refresh(self._flush_batched)
            elif self._after:
                # Nothing awaited (an outcome, the deadline): what changed may not yet be told to the screen, so
                # it is idle with nothing to paint, and Textual runs an after-refresh callback at once, before
                # the frame. A moment later instead: after the frame, in all but a very slow one.
                self.node.set_timer(AFTER_FRAME, self._flush_on_timer)
            # Ending a batch does not paint: the screen paints when it is next idle, i.e. after one of
            # its messages. A timer's callback (the deadline, or the wait for mounts under load) runs
            # outside the screen's messages, so without this the frame waited for the expert's next key.
            self.node.screen.check_idle()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _slow(self) -> None:
        self._timer = None
        self._close()
        self.on_slow()
