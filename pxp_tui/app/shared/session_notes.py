"""What annotation tools have taught experts to expect, on the session screen: skip the instance at their turn
(``x``), flag the session for later with a note (``b``), a free-text note on it (``n``).

None of these sends or changes a message: a skip ends the session without the expert's message (stop reason
``skipped``, measured nowhere), flags and notes go to the blackboard's ``annotations``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.binding import Binding

from pxp_tui.app.shared.confirm import ConfirmScreen
from pxp_tui.app.shared.note import NoteScreen

if TYPE_CHECKING:
    from pxp_tui.blackboard.notes import Annotation


def note_bindings(prefix: str) -> list[Binding]:
    """``b`` flags the session for later (with a note), ``n`` writes a note on it."""
    return [
        Binding("b", "annotate(True)", "Flag", id=f"{prefix}.flag", tooltip="Flag this session for later, with a note"),
        Binding("n", "annotate(False)", "Note", id=f"{prefix}.note", tooltip="A free-text note on this session"),
    ]


def skip_binding(prefix: str) -> Binding:
    return Binding("x", "skip", "Skip instance", id=f"{prefix}.skip", tooltip="Skip this instance (asks first)")


def note_heading(annotation: Annotation, where: str) -> str:
    return f"Note on {where}" + (" · flagged" if annotation.flagged else "")


class NotesScreen(Protocol):
    """What :class:`SessionNotes` reads of the screen it serves (the session screen)."""

    board: Any
    exchange: Any
    driver: Any

    @property
    def app(self) -> Any: ...

    @property
    def answering(self) -> bool:
        """Whether it is the expert's turn to answer."""

    def notify(self, message: str, *, severity: Any = ...) -> None: ...

    def flag_changed(self, session_id: int, flagged: bool) -> None:
        """The session was flagged for later, or no longer is."""


class SessionNotes:
    """The session screen's part for the expert's skip, flag and note; it reads the screen's ``board``,
    ``exchange``, ``driver`` and whether the expert is answering."""

    def __init__(self, screen: NotesScreen) -> None:
        self.screen = screen

    @property
    def board(self) -> Any:
        return self.screen.board

    @property
    def exchange(self) -> Any:
        return self.screen.exchange

    @property
    def driver(self) -> Any:
        return self.screen.driver

    @property
    def app(self) -> Any:
        return self.screen.app

    def notify(self, message: str, *, severity: Any = "information") -> None:
        self.screen.notify(message, severity=severity)

    @property
    def can_skip(self) -> bool:
        return self.screen.answering and self.driver is not None and self.driver.human.waiting

    def skip(self) -> None:
        """Ask, then skip this instance: the session ends, nothing of the expert's is sent."""
        if not self.can_skip:
            self.notify("Skipping is for your turn.", severity="warning")
            return
        ex = self.exchange
        question = (
            f"Skip session {ex.order + 1} ({ex.instance.name})? It ends without your answer, is left out of "
            "the intelligibility measures, and is not offered again when the run resumes."
        )
        self.app.push_screen(ConfirmScreen(question, yes="Skip"), self._skip_confirmed)

    def _skip_confirmed(self, yes: bool | None) -> None:
        if yes and self.can_skip:
            self.driver.human.skip()
            self.notify(f"Session {self.exchange.order + 1} skipped.")

    def annotate(self, flag: bool) -> None:
        """Open the note of the session on screen; ``flag`` ticks "flagged for later" first."""
        from pxp_tui.blackboard import notes

        if self.board is None or self.exchange is None:
            self.notify("No session yet.", severity="warning")
            return
        found = notes.get(self.board, self.exchange.session_id)
        if flag:
            from dataclasses import replace

            found = replace(found, flagged=True)
        heading = note_heading(found, f"session {self.exchange.order + 1} ({self.exchange.instance.name})")
        self.app.push_screen(NoteScreen(found, heading), self._save_note)

    def _save_note(self, annotation: Annotation | None) -> None:
        from pxp_tui.blackboard import notes

        if annotation is None or self.board is None:
            return
        notes.save(self.board, annotation)
        self.screen.flag_changed(annotation.session_id, annotation.flagged)  # the screen shows the flag
        self.notify("Flagged for later, note saved." if annotation.flagged else "Note saved.")
