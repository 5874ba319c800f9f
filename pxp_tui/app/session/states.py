"""The session screen's states, the moves between them, who holds the human's seat, and the screen's actions each
state allows.

Pure: no Textual, no clock. The screen (``session/screen.py``) holds one :class:`SessionState` and one
:class:`Seat`, and moves them only through :func:`transition` and :func:`move_seat`, which refuse a move these
tables do not allow; its keys are enabled by :func:`allowed`. Every state moves for a protocol reason (the
engine's events, the expert's keys, the app closing), never for how the screen paints. ``docs/ARCHITECTURE.md``
draws the same machine.
"""

from __future__ import annotations

from enum import Enum


class SessionState(Enum):
    """Where the session screen is. Compared as itself (``state is SessionState.HUMAN``): never equal to a string."""

    LOADING = "loading"  # the run being read, the modules (litellm, RDKit) loading
    MACHINE = "machine"  # the machine is answering, or a human seat that answers by itself (the proxy) is
    HUMAN = "human"  # the expert's turn
    OUTCOME = "outcome"  # a session ended: its outcome stays until the expert moves on
    STOPPED = "stopped"  # cancelled, paused or failed: retry continues
    DONE = "done"  # the run is finished
    LEAVING = "leaving"  # the app closes, or another run takes the blackboard: the engine stopped, its reports dropped


LOADING, MACHINE, HUMAN, OUTCOME, STOPPED, DONE, LEAVING = SessionState

#: state -> the states it may move to (why, in the order of the states)
TRANSITIONS: dict[SessionState, frozenset[SessionState]] = {
    # the run is driven; or it was finished already; the app closes while it loads
    LOADING: frozenset({MACHINE, DONE, LEAVING}),
    # the machine's (or a watched human's) next message; the expert's turn; a session's end; a cancel, pause
    # or failure; the run's end; the app closes
    MACHINE: frozenset({MACHINE, HUMAN, OUTCOME, STOPPED, DONE, LEAVING}),
    # the expert sent (or skipped: the next session's machine); the engine failed under the turn; the app closes
    HUMAN: frozenset({MACHINE, STOPPED, LEAVING}),
    # the expert moved on (what the engine reported meanwhile follows); the engine failed while the outcome was
    # shown; the app closes
    OUTCOME: frozenset({MACHINE, STOPPED, LEAVING}),
    # retry, resume, or another model; a second report of the same stop; the app closes
    STOPPED: frozenset({MACHINE, STOPPED, LEAVING}),
    # the app closes: a finished run stays finished
    DONE: frozenset({LEAVING}),
    # nothing: the screen is closing
    LEAVING: frozenset(),
}


#: (state, the state it moves to) -> when: every move of :data:`TRANSITIONS`, as docs/ARCHITECTURE.md tables them
WHY: dict[tuple[SessionState, SessionState], str] = {
    (LOADING, MACHINE): "the run is driven",
    (LOADING, DONE): "the run opened was finished",
    (MACHINE, MACHINE): "the machine's next message, or a watched human's (the proxy)",
    (MACHINE, HUMAN): "the expert's turn",
    (MACHINE, OUTCOME): "a session ends (the expert answering: its outcome stays until they move on)",
    (MACHINE, STOPPED): "cancel (`ctrl+g`, confirmed), pause or failure",
    (MACHINE, DONE): "the run ends",
    (HUMAN, MACHINE): "the expert sends, or skips the instance",
    (HUMAN, STOPPED): "the engine fails",
    (OUTCOME, MACHINE): "the expert moves on (enter): what the engine reported meanwhile, held, follows",
    (OUTCOME, STOPPED): "the engine fails",
    (STOPPED, MACHINE): "retry, resume, or another model",
    (STOPPED, STOPPED): "a stop reported twice",
    **{
        (state, LEAVING): "the app closes, or a new run takes the blackboard: the engine is stopped and nothing it "
        "reports is shown"
        for state in SessionState
        if state is not LEAVING
    },
}


class RefusedTransitionError(ValueError):
    """A transition the session screen's states do not allow: a fault of the screen, not of the run."""


def transition(current: SessionState, new: SessionState) -> SessionState:
    """``new``, if the screen may move there from ``current``; else :class:`RefusedTransitionError`."""
    if new not in TRANSITIONS[current]:
        raise RefusedTransitionError(f"the session screen does not go from {current.value} to {new.value}")
    return new


class Seat(Enum):
    """Who answers the human's turns, as the screen sees it."""

    EXPERT = "expert"  # the expert (a live run)
    WATCHED = "watched"  # the seat answers by itself (the proxy, a second machine): the expert watches
    JOINED = "joined"  # the expert took a second machine's seat: they answer its turns until they hand it back


EXPERT, WATCHED, JOINED = Seat

#: seat -> the seats it may move to: a second machine's seat is taken (t) and handed back (t again)
SEAT_MOVES: dict[Seat, frozenset[Seat]] = {
    EXPERT: frozenset(),
    WATCHED: frozenset({JOINED}),
    JOINED: frozenset({WATCHED}),
}

#: the states in which a seat may not change: at the expert's turn in the seat (its answer is awaited), and once
#: the screen is leaving
SEAT_HELD: dict[Seat, frozenset[SessionState]] = {
    EXPERT: frozenset(SessionState),
    WATCHED: frozenset({LEAVING}),
    JOINED: frozenset({HUMAN, LEAVING}),
}


def seat_may_move(seat: Seat, state: SessionState) -> bool:
    """Whether ``seat`` may be taken or handed back in ``state``."""
    return bool(SEAT_MOVES[seat]) and state not in SEAT_HELD[seat]


def move_seat(seat: Seat, state: SessionState) -> Seat:
    """The other seat (taken, or handed back) if ``seat`` may move in ``state``; else :class:`RefusedTransitionError`."""
    if not seat_may_move(seat, state):
        raise RefusedTransitionError(f"the {seat.value} seat does not move while the screen is {state.value}")
    (new,) = SEAT_MOVES[seat]
    return new


#: action -> (the states it applies in, the seats it applies with)
ACTIONS: dict[str, tuple[frozenset[SessionState], frozenset[Seat]]] = {
    # before the expert's turn it says to wait
    "send": (frozenset({HUMAN, MACHINE, LOADING}), frozenset({EXPERT, JOINED})),
    "early_tag": (frozenset({HUMAN, MACHINE, LOADING}), frozenset({EXPERT, JOINED})),
    # the expert's own call to cancel: watching, p pauses instead
    "cancel_call": (frozenset({MACHINE}), frozenset({EXPERT, JOINED})),
    "retry": (frozenset({STOPPED}), frozenset(Seat)),
    "next_instance": (frozenset({OUTCOME}), frozenset(Seat)),
    "summary": (frozenset({DONE}), frozenset(Seat)),
    "pause": (frozenset({MACHINE, STOPPED}), frozenset({WATCHED})),
    "skip": (frozenset({HUMAN}), frozenset({EXPERT, JOINED})),
}


def allowed(action: str, state: SessionState, seat: Seat) -> bool | None:
    """Whether ``action`` applies in ``state`` with ``seat``; None for an action the states do not decide."""
    if action not in ACTIONS:
        return None
    states, seats = ACTIONS[action]
    return state in states and seat in seats
