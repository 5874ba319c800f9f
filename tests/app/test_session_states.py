"""The session screen's states: every transition the screen makes is allowed, every other one refused; who holds
the human's seat moves only as specified; each action applies in the states (and with the seat) a user expects.

The moves are ``states.TRANSITIONS`` (docs/ARCHITECTURE.md's table is written from it and checked by
``tests/app/test_docs_reference.py``): ``transition`` allows each of them and refuses every other of the 49 pairs.
The seat's moves and the actions are written out here, state by state.
"""

from __future__ import annotations

import itertools

import pytest

from pxp_tui.app.session.states import (
    ACTIONS,
    TRANSITIONS,
    RefusedTransitionError,
    Seat,
    SessionState,
    allowed,
    move_seat,
    seat_may_move,
    transition,
)

LOADING, MACHINE, HUMAN, OUTCOME, STOPPED, DONE, LEAVING = SessionState
EXPERT, WATCHED, JOINED = Seat

PAIRS = list(itertools.product(SessionState, SessionState))


def test_the_states_are_the_screens_seven() -> None:
    assert [s.value for s in SessionState] == ["loading", "machine", "human", "outcome", "stopped", "done", "leaving"]
    assert SessionState.HUMAN != "human"  # compared as the Enum: a string comparison is never true


@pytest.mark.parametrize(("current", "new"), PAIRS, ids=[f"{a.value}->{b.value}" for a, b in PAIRS])
def test_each_transition_is_allowed_or_refused_as_specified(current: SessionState, new: SessionState) -> None:
    if new in TRANSITIONS[current]:
        assert transition(current, new) is new
    else:
        with pytest.raises(RefusedTransitionError, match=f"from {current.value} to {new.value}"):
            transition(current, new)


def reachable(start: SessionState) -> set[SessionState]:
    seen, frontier = {start}, [start]
    while frontier:
        for new in TRANSITIONS[frontier.pop()]:
            if new not in seen:
                seen.add(new)
                frontier.append(new)
    return seen


def test_every_state_is_reached_from_loading_and_every_run_can_still_finish() -> None:
    assert reachable(LOADING) == set(SessionState)
    for state in set(SessionState) - {LEAVING}:  # the run's end is always ahead: nothing is stuck
        assert DONE in reachable(state), state
    assert TRANSITIONS[DONE] == frozenset({LEAVING})  # a finished run stays finished
    assert TRANSITIONS[LEAVING] == frozenset()  # a closing screen stays closing


def test_a_second_machines_seat_is_taken_at_any_time_and_handed_back_between_the_experts_turns() -> None:
    for state in SessionState:
        assert not seat_may_move(EXPERT, state)  # an expert's own run: nothing to take
        assert seat_may_move(WATCHED, state) == (state is not LEAVING)
        assert seat_may_move(JOINED, state) == (state not in (HUMAN, LEAVING))  # their answer is awaited
    assert move_seat(WATCHED, MACHINE) is JOINED
    assert move_seat(JOINED, MACHINE) is WATCHED
    assert move_seat(JOINED, OUTCOME) is WATCHED
    for seat, state in ((JOINED, HUMAN), (EXPERT, MACHINE), (WATCHED, LEAVING)):
        with pytest.raises(RefusedTransitionError, match=f"the {seat.value} seat"):
            move_seat(seat, state)


#: action -> the states it applies in, with the expert answering (their own seat, or a second machine's taken)
#: and watching
ACTIONS_SPEC = {
    "send": ({HUMAN, MACHINE, LOADING}, set()),  # early: it says to wait; watching: nothing to send
    "early_tag": ({HUMAN, MACHINE, LOADING}, set()),
    "cancel_call": ({MACHINE}, set()),  # watching, p pauses instead
    "retry": ({STOPPED}, {STOPPED}),
    "next_instance": ({OUTCOME}, {OUTCOME}),
    "summary": ({DONE}, {DONE}),
    "pause": (set(), {MACHINE, STOPPED}),
    "skip": ({HUMAN}, set()),
}


@pytest.mark.parametrize("action", sorted(ACTIONS_SPEC))
@pytest.mark.parametrize("seat", list(Seat), ids=[s.value for s in Seat])
def test_each_action_applies_in_the_states_specified(action: str, seat: Seat) -> None:
    expected = ACTIONS_SPEC[action][seat is WATCHED]
    assert {state for state in SessionState if allowed(action, state, seat)} == expected


def test_the_states_decide_only_their_actions() -> None:
    assert set(ACTIONS) == set(ACTIONS_SPEC)
    for state in SessionState:
        assert allowed("annotate", state, EXPERT) is None  # decided by the screen (a session on screen)
        assert allowed("take_seat", state, WATCHED) is None
