"""The AGENT procedure for agents whose tags are computed (the machine, and the human proxy)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pxp_tui.agents.llm import Completion, totals
from pxp_tui.engine import Turn
from pxp_tui.protocol import Tag, changed, decide_tag

Match = Callable[[str, str], bool]
Agree = Callable[[str, str], Awaitable[tuple[bool, Completion | None]]]


@dataclass
class Decision:
    """A computed message: its tag, what it carries, and the guard values that decided it."""

    tag: Tag
    prediction: str
    explanation: str
    guards: dict[str, bool] = field(default_factory=dict)
    checks: list[Completion] = field(default_factory=list)


async def decide(turn: Turn, fresh: tuple[str, str], match: Match, agree: Agree) -> Decision:
    """Tag message ``turn.j`` by the decision table, given the agent's fresh answer ``(y, e)``.

    ``(y', e')`` is the other agent's message at ``j-1``; ``(y'', e'')`` the agent's own at ``j-2``
    (its fresh answer at ``j = 2``). An agent whose answer has not changed re-sends ``(y'', e'')``.
    """
    y, e = fresh
    if turn.j == 1:
        return Decision(Tag.INIT, y, e)
    other, own = turn.other_last, turn.own_last
    assert other is not None
    y2, e2 = (own.prediction, own.explanation) if own is not None else (y, e)
    checks: list[Completion] = []

    async def agreed(a: str, b: str) -> bool:
        verdict, completion = await agree(a, b)
        if completion is not None:
            checks.append(completion)
        return verdict

    match_other = match(other.prediction, y2)
    agree_other = await agreed(other.explanation, e2)
    if own is None:
        is_changed = False
    else:
        match_own = match(y, y2)
        is_changed = changed(match_own, match_own and await agreed(e, e2))
    tag = decide_tag(turn.j, turn.k, match_other, agree_other, is_changed)
    if not is_changed:
        y, e = y2, e2
    guards = {"guard_match": match_other, "guard_agree": agree_other, "guard_changed": is_changed}
    return Decision(tag, y, e, guards, checks)


def first_agreement(turn: Turn) -> tuple[str, str] | None:
    """The explanations :func:`decide` compares first, when they are known before the agent's fresh answer: the
    other agent's at ``j-1`` and the agent's own at ``j-2``. None at ``j = 1`` (no comparison) and before the
    agent's first message of the session (then its own is the fresh answer's)."""
    if turn.j == 1 or turn.other_last is None or turn.own_last is None:
        return None
    return turn.other_last.explanation, turn.own_last.explanation


class EarlyAgree:
    """AGREE with :func:`decide`'s first question asked at once, while the agent's model answers.

    The comparison of the other agent's explanation with the agent's own last one does not depend on the fresh
    answer, so the checker's call for it need not wait for the model's: with a model a round trip away, each
    message then costs one round trip, not two. Called as AGREE, it answers that question from the early call
    and any other by calling ``agree``. :meth:`close` cancels an early call nobody asked for (the agent's call
    failed or was cancelled).
    """

    def __init__(self, agree: Agree, turn: Turn) -> None:
        self.agree = agree
        pair = first_agreement(turn)
        self._early = (pair, asyncio.ensure_future(agree(*pair))) if pair is not None else None

    async def __call__(self, first: str, second: str) -> tuple[bool, Completion | None]:
        if self._early is not None and self._early[0] == (first, second):
            early, self._early = self._early[1], None
            return await early
        return await self.agree(first, second)

    def close(self) -> None:
        if self._early is None:
            return
        early, self._early = self._early[1], None
        if not early.done():
            early.cancel()
        elif not early.cancelled():
            early.exception()  # a failure of a question nobody asked is nobody's: retrieved, not logged


def check_meta(checks: list[Completion]) -> dict[str, float]:
    """Total latency and cost of the checker's calls."""
    if not checks:
        return {}
    latency, cost = totals(checks)
    return {"latency_ms": latency} if cost is None else {"latency_ms": latency, "cost": cost}
