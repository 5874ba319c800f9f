"""The expert's unsent answer, kept as they type (``drafts`` in the blackboard, never a message) and put back when
the run is reopened: quitting, a crash or a closed terminal mid-answer loses at most :data:`DEBOUNCE` of typing.

A change to the tag, the prediction or the explanation is saved :data:`DEBOUNCE` seconds after typing pauses, in a
thread (the write waits its turn for the file as any writer does); quitting saves what is pending first. Sending
saves the answer as the draft at once: if the process ends before the engine stores the message, the answer comes
back as sent. The blackboard deletes a draft when its message is stored or its session ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pxp_tui.common.visible import visible
from pxp_tui.protocol import Tag

if TYPE_CHECKING:
    from pxp_tui.app.session.widgets.tag_picker import Answer
    from pxp_tui.blackboard.drafts import Draft

#: seconds after the last change before the draft is written
DEBOUNCE = 0.5


class DraftScreen(Protocol):
    """What :class:`DraftKeeper` reads of the screen it serves (the session screen)."""

    board: Any
    exchange: Any

    def set_timer(self, delay: float, callback: Any) -> Any: ...

    def run_worker(
        self,
        work: Callable[[], None],
        name: str | None = ...,
        group: str = ...,
        description: str = ...,
        exit_on_error: bool = ...,
        start: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> Any: ...


class DraftKeeper:
    """The session screen's part that keeps the expert's unsent answer."""

    def __init__(self, screen: DraftScreen) -> None:
        self.screen = screen
        self.stored: dict[tuple[int, int], Draft] = {}  # the run's drafts as read when it was opened
        self.kept = False  # the answer on screen was changed (or sent) and is kept as a draft
        self._pending: Draft | None = None
        self._timer: Any = None
        self._lock = threading.Lock()  # one write at a time, always of the latest answer

    def changed(self, answer: Answer) -> None:
        """The expert changed their answer: keep it, :data:`DEBOUNCE` seconds after the last change."""
        draft = self._draft(answer)
        if draft is None:
            return
        self._pending = draft
        self.kept = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.screen.set_timer(DEBOUNCE, self._write_later)

    def sent(self, answer: Answer) -> None:
        """The expert sent ``answer``: kept as the draft until the engine stores the message (which deletes it)."""
        self.changed(answer)
        self._write_later()

    def turn_over(self) -> None:
        """A new turn, or the session ended: nothing typed on screen yet."""
        self.kept = False

    def restore(self, session_id: int, j: int) -> Answer | None:
        """The draft kept for message ``j`` of session ``session_id`` when the run was opened (once), as an answer."""
        from pxp_tui.app.session.widgets.tag_picker import Answer

        draft = self.stored.pop((session_id, j), None)
        if draft is None:
            return None
        self.kept = True
        try:
            tag = Tag(draft.tag) if draft.tag else None
        except ValueError:  # not a tag (a file edited by hand): no tag chosen
            tag = None
        return Answer(tag, visible(draft.prediction, one_line=True), visible(draft.explanation))

    def flush(self) -> None:
        """Write what is pending now (in the caller's thread: call it off the UI loop)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._write()

    def _write_later(self) -> None:
        self._timer = None
        self.screen.run_worker(self._write, thread=True, group="draft", exit_on_error=False)

    def _write(self) -> None:
        from pxp_tui.blackboard import drafts

        with self._lock:
            draft, self._pending = self._pending, None
            if draft is not None and self.screen.board is not None:
                drafts.save(self.screen.board, draft)

    def _draft(self, answer: Answer) -> Draft | None:
        from pxp_tui.blackboard.drafts import Draft

        ex = self.screen.exchange
        if ex is None or ex.stop is not None:
            return None
        tag = answer.tag.value if answer.tag is not None else None
        return Draft(ex.session_id, ex.next_j, tag, answer.prediction, answer.explanation)
