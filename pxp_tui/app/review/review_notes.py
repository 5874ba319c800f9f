"""Flags and notes in the review: shown in the session list, written from it (``b`` flag, ``n`` note): the review's writes.

This is where the review writes, and the only place: the review's reads go through its read-only connection
(:mod:`pxp_tui.app.review.reader`); a flag or note is written in a thread through a writer's connection opened for it
(which brings an older file to the current schema first). That connection's writes go through the file's one
:class:`~pxp_tui.blackboard.transactions.Writer` of this process, as the live app's do: a note written while the app
drives a run waits its turn. Then the list is read again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from pxp_tui.app.shared.note import NoteScreen
from pxp_tui.app.shared.session_notes import note_heading
from pxp_tui.blackboard import Blackboard, BlackboardError, notes
from pxp_tui.common.visible import visible

if TYPE_CHECKING:
    from pxp_tui.app.review.reader import ReviewBoard
    from pxp_tui.blackboard import review

#: characters of a note shown in the session list
NOTE_CELL = 24


def note_cell(flagged: bool, note: str) -> str:
    """``⚑`` for a flagged session, then the note's first words."""
    text = visible(" ".join(note.split()), one_line=True)
    if len(text) > NOTE_CELL:
        text = text[: NOTE_CELL - 1] + "…"
    return ("⚑ " if flagged else "") + text


def replay_note(replay: review.Replay) -> str:
    """The replayed session's flag and note, on a line of their own (nothing when it has neither)."""
    found = replay.annotation
    if found is None or found.empty:
        return ""
    return ("⚑ flagged for later" if found.flagged else "Note") + (f": {visible(found.note)}" if found.note else "")


class ReviewNotes:
    """Mixed into the sessions screen, which provides ``board``, ``run_id``, ``cursor_session`` and ``load``."""

    board: ReviewBoard
    run_id: int
    skipped: int = 0
    app: Any

    if TYPE_CHECKING:  # the screen's own (declared here for the type checker only: they must not shadow them)

        def notify(self, message: str, **kwargs: Any) -> None: ...

        def load(self) -> Any: ...

        def cursor_session(self) -> review.SessionRow | None: ...

    def _skipped_text(self) -> str:
        return f", {self.skipped} skipped" if self.skipped else ""

    def action_annotate(self, flag: bool) -> None:
        row = self.cursor_session()
        if row is None:
            return
        found = notes.Annotation(row.session_id, row.flagged or flag, row.note)
        heading = note_heading(found, f"session {row.order + 1} ({row.instance}) of run {self.run_id}")
        self.app.push_screen(NoteScreen(found, heading), self._save_note)

    def _save_note(self, annotation: notes.Annotation | None) -> None:
        if annotation is not None:
            self._write_note(annotation)

    @work(group="review-note")
    async def _write_note(self, annotation: notes.Annotation) -> None:
        """The review's one write (see the module's note)."""
        try:
            await asyncio.to_thread(write_note, self.board.path, annotation)
        except (BlackboardError, ValueError) as exc:
            self.notify(f"The note was not saved: {exc}", severity="error", markup=False)
            return
        self.notify("Flagged for later, note saved." if annotation.flagged else "Note saved.")
        self.load()


def write_note(path: Path, annotation: notes.Annotation) -> None:
    """Store ``annotation`` in the blackboard at ``path``, through a writer's connection opened for it."""
    with Blackboard.open(path, create=False) as writer:
        notes.save(writer, annotation)
