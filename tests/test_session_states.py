"""The session screen's states: every transition the screen makes is allowed, every other one refused; each
action applies in the states (and with the expert answering or watching) a user expects.

The tables here are the specification, written out pair by pair; ``pxp_tui/app/session/states.py`` must
agree with them for all 36 transitions and every action in every state.
"""

from __future__ import annotations

import itertools

import pytest

from pxp_tui.app.session.states import (
    ACTIONS,
    TRANSITIONS,
    RefusedTransitionError,
    SessionState,
    allowed,
    transition,
)

LOADING, MACHINE, HUMAN, OUTCOME, STOPPED, DONE = SessionState

#: (from, to) -> what makes the screen go there
ALLOWED = {
    (LOADING, MACHINE): "the run is driven",
    (LOADING, DONE): "a finished run is opened",
    (MACHINE, MACHINE): "the machine's next message (or a watched human's)",
    (MACHINE, HUMAN): "the expert's turn",
    (MACHINE, OUTCOME): "a session ends",
    (MACHINE, STOPPED): "cancelled, paused or failed",
    (MACHINE, DONE): "the run ends",
    (HUMAN, MACHINE): "the expert sends, or skips the instance",
    (HUMAN, STOPPED): "the engine fails at the expert's turn",
    (OUTCOME, MACHINE): "the expert moves on",
    (OUTCOME, STOPPED): "the engine fails while the outcome is shown",
    (STOPPED, MACHINE): "retry, resume, or another model",
    (STOPPED, STOPPED): "a stop reported twice",
}

PAIRS = list(itertools.product(SessionState, SessionState))


def test_the_states_are_the_screens_six() -> None:
    assert [s.value for s in SessionState] == ["loading", "machine", "human", "outcome", "stopped", "done"]
    assert SessionState.HUMAN == "human"  # what the tests and the screen's callers compare it with


@pytest.mark.parametrize(("current", "new"), PAIRS, ids=[f"{a.value}->{b.value}" for a, b in PAIRS])
def test_each_transition_is_allowed_or_refused_as_specified(current: SessionState, new: SessionState) -> None:
    if (current, new) in ALLOWED:
        assert transition(current, new) is new
    else:
        with pytest.raises(RefusedTransitionError, match=f"from {current.value} to {new.value}"):
            transition(current, new)


def test_every_state_is_reached_from_loading_and_every_run_can_still_finish() -> None:
    reached, frontier = {LOADING}, [LOADING]
    while frontier:
        for new in TRANSITIONS[frontier.pop()]:
            if new not in reached:
                reached.add(new)
                frontier.append(new)
    assert reached == set(SessionState)
    for state in SessionState:  # the run's end is always ahead: nothing is stuck
        seen, frontier = {state}, [state]
        while frontier:
            for new in TRANSITIONS[frontier.pop()]:
                if new not in seen:
                    seen.add(new)
                    frontier.append(new)
        assert DONE in seen, state
    assert TRANSITIONS[DONE] == frozenset()  # a finished run stays finished


#: action -> the states it applies in, with the expert answering (False) and watching (True)
ACTIONS_SPEC = {
    "send": ({HUMAN, MACHINE, LOADING}, set()),  # early: it says to wait; watching: nothing to send
    "early_tag": ({HUMAN, MACHINE, LOADING}, set()),
    "cancel": ({MACHINE}, set()),  # watching, p pauses instead
    "retry": ({STOPPED}, {STOPPED}),
    "next_instance": ({OUTCOME}, {OUTCOME}),
    "summary": ({DONE}, {DONE}),
    "pause": (set(), {MACHINE, STOPPED}),
    "skip": ({HUMAN}, set()),
}


@pytest.mark.parametrize("action", sorted(ACTIONS_SPEC))
@pytest.mark.parametrize("watched", [False, True], ids=["answering", "watching"])
def test_each_action_applies_in_the_states_specified(action: str, watched: bool) -> None:
    expected = ACTIONS_SPEC[action][watched]
    assert {state for state in SessionState if allowed(action, state, watched)} == expected


def test_the_states_decide_only_their_actions() -> None:
    assert set(ACTIONS) == set(ACTIONS_SPEC)
    for state in SessionState:
        assert allowed("annotate", state, False) is None  # decided by the screen (a session on screen)
        assert allowed("take_seat", state, True) is None
