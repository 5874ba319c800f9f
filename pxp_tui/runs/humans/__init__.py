"""The agent kinds of the human's seat, a registry beside the task registry (:data:`pxp_tui.tasks.TASKS`).

Each kind (:class:`~pxp_tui.common.kinds.HumanKind`) is a module here whose ``seat(seat: Seat) -> Agent``
builds the agent that answers at even ``j``. A new kind is one module and one line in :data:`HUMANS`
(and its member in ``HumanKind``, which the blackboard stores): see docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from collections.abc import Callable

from pxp_tui.common.kinds import HumanKind
from pxp_tui.engine import Agent
from pxp_tui.runs.humans import live, model, proxy
from pxp_tui.runs.seats import Seat

#: kind -> the function building its agent from a :class:`Seat`
HUMANS: dict[HumanKind, Callable[[Seat], Agent]] = {
    HumanKind.PROXY: proxy.seat,
    HumanKind.LIVE: live.seat,
    HumanKind.MODEL: model.seat,
}


def build_human(kind: HumanKind, seat: Seat) -> Agent:
    """The agent of kind ``kind`` in the human's seat of ``seat.run``."""
    return HUMANS[kind](seat)
