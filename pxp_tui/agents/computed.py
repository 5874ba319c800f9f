"""The AGENT procedure for agents whose tags are computed (the machine, and the human proxy)."""

from __future__ import annotations

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


def check_meta(checks: list[Completion]) -> dict[str, float]:
    """Total latency and cost of the checker's calls."""
    if not checks:
        return {}
    latency, cost = totals(checks)
    return {"latency_ms": latency} if cost is None else {"latency_ms": latency, "cost": cost}
