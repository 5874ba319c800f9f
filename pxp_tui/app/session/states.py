"""The session screen's states, the moves between them, and the screen's actions each state allows.

Pure: no Textual, no clock. The screen (``session/screen.py``) holds one :class:`SessionState` and moves
it only through :func:`transition`, which refuses a move this table does not allow; its keys are enabled by
:func:`allowed`. ``docs/ARCHITECTURE.md`` draws the same machine.
"""

from __future__ import annotations

from enum import Enum


class SessionState(str, Enum):
    """Where the session screen is. A ``str`` (its value): equal to its name in lower case."""

    LOADING = "loading"  # the run being read, the modules (litellm, RDKit) loading
    MACHINE = "machine"  # the machine is answering, or a human seat that answers by itself (the proxy) is
    HUMAN = "human"  # the expert's turn
    OUTCOME = "outcome"  # a session ended: its outcome stays until the expert moves on
    STOPPED = "stopped"  # cancelled, paused or failed: retry continues
    DONE = "done"  # the run is finished


LOADING, MACHINE, HUMAN, OUTCOME, STOPPED, DONE = SessionState

#: state -> the states it may move to (why, in the order of the states)
TRANSITIONS: dict[SessionState, frozenset[SessionState]] = {
    # the run is driven; or it was finished already
    LOADING: frozenset({MACHINE, DONE}),
    # the machine's (or a watched human's) next message; the expert's turn; a session's end; a cancel, pause
    # or failure; the run's end
    MACHINE: frozenset({MACHINE, HUMAN, OUTCOME, STOPPED, DONE}),
    # the expert sent (or skipped: the next session's machine); the engine failed under the turn
    HUMAN: frozenset({MACHINE, STOPPED}),
    # the expert moved on; the engine failed while the outcome was shown
    OUTCOME: frozenset({MACHINE, STOPPED}),
    # retry, resume, or another model; a second report of the same stop
    STOPPED: frozenset({MACHINE, STOPPED}),
    # nothing: a finished run stays finished
    DONE: frozenset(),
}


class RefusedTransitionError(ValueError):
    """A transition the session screen's states do not allow: a fault of the screen, not of the run."""


def transition(current: SessionState, new: SessionState) -> SessionState:
    """``new``, if the screen may move there from ``current``; else :class:`RefusedTransitionError`."""
    if new not in TRANSITIONS[current]:
        raise RefusedTransitionError(f"the session screen does not go from {current.value} to {new.value}")
    return new


#: action -> (the states it applies in, whether only while the expert watches (True) or answers (False), or either (None))
ACTIONS: dict[str, tuple[frozenset[SessionState], bool | None]] = {
    "send": (frozenset({HUMAN, MACHINE, LOADING}), False),  # before the expert's turn it says to wait
    "early_tag": (frozenset({HUMAN, MACHINE, LOADING}), False),
    "cancel": (frozenset({MACHINE}), False),
    "retry": (frozenset({STOPPED}), None),
    "next_instance": (frozenset({OUTCOME}), None),
    "summary": (frozenset({DONE}), None),
    "pause": (frozenset({MACHINE, STOPPED}), True),
    "skip": (frozenset({HUMAN}), False),
}


def allowed(action: str, state: SessionState, watched: bool) -> bool | None:
    """Whether ``action`` applies in ``state`` (``watched``: the human's seat answers by itself); None for an
    action the states do not decide."""
    if action not in ACTIONS:
        return None
    states, watching = ACTIONS[action]
    return state in states and (watching is None or watching == watched)
