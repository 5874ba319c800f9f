"""Scheduling, the AGENT tag decision table, and the INTERACT stop rule (DESIGN.md section 1)."""

from __future__ import annotations

from enum import Enum

from pxp_tui.protocol.tags import Sender, Tag


class StopReason(str, Enum):
    """Why a session ended."""

    RATIFIED = "ratified"  # the latest machine tag and the latest human tag are both RATIFY
    REJECTED = "rejected"  # the message just sent is REJECT
    BOUND = "bound"  # j reached n
    #: not the stop rule's: the expert skipped the instance at their turn (an annotation tool's "skip"); the
    #: session has no message of theirs and counts in no intelligibility measure
    SKIPPED = "skipped"
    #: EVINCE's rule (--stop evince|both) ended the debate, and what it found there (protocol.evince.outcome):
    CONVERGED = "converged"  # WD fell, or the two distributions are within the tolerance of each other
    DIVERGED = "diverged"  # WD rose
    STALLED = "stalled"  # WD did not move, the agents still apart

    @property
    def by_evince(self) -> bool:
        """Whether EVINCE's rule ended the session (not PXP's rule, the bound or the expert)."""
        return self in (StopReason.CONVERGED, StopReason.DIVERGED, StopReason.STALLED)

    def __str__(self) -> str:
        return self.value


def sender_at(j: int) -> Sender:
    """The machine speaks at odd ``j`` (``j = 1`` is its INIT), the human at even ``j``."""
    if j < 1:
        raise ValueError(f"message numbers start at 1, got {j}")
    return Sender.MACHINE if j % 2 == 1 else Sender.HUMAN


def changed(match_own: bool, agree_own: bool) -> bool:
    """``Changed = not MATCH(y, y'') or not AGREE(e, e'')``: the agent's fresh answer differs from its last."""
    return not match_own or not agree_own


def decide_tag(j: int, k: int, match_other: bool, agree_other: bool, is_changed: bool) -> Tag:
    """The AGENT procedure's tag for message ``j``.

    ``match_other`` = MATCH(y', y'') and ``agree_other`` = AGREE(e', e''), comparing the other
    agent's message at ``j-1`` with this agent's own at ``j-2``; ``is_changed`` is :func:`changed`.
    ``REJECT`` is possible only when ``j > k``.
    """
    if j < 1:
        raise ValueError(f"message numbers start at 1, got {j}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if j == 1:
        return Tag.INIT
    if match_other and agree_other:
        return Tag.RATIFY
    if not match_other and not agree_other and j > k:
        return Tag.REJECT
    return Tag.REVISE if is_changed else Tag.REFUTE


def allowed_tags(j: int, k: int) -> tuple[Tag, ...]:
    """Tags an agent may send at message ``j``: INIT only at 1, REJECT only after ``k``."""
    if j < 1:
        raise ValueError(f"message numbers start at 1, got {j}")
    if j == 1:
        return (Tag.INIT,)
    tags = (Tag.RATIFY, Tag.REFUTE, Tag.REVISE)
    return (*tags, Tag.REJECT) if j > k else tags


def stop_reason(j: int, n: int, tag: Tag, last_machine: Tag | None, last_human: Tag | None) -> StopReason | None:
    """Whether the session stops after message ``j`` (tag ``tag``) was sent.

    ``last_machine`` and ``last_human`` are the latest tags of each agent *including* message ``j``.
    The rule uses the latest tags, not "has ever ratified".
    """
    if tag is Tag.REJECT:
        return StopReason.REJECTED
    if last_machine is Tag.RATIFY and last_human is Tag.RATIFY:
        return StopReason.RATIFIED
    if j >= n:
        return StopReason.BOUND
    return None
