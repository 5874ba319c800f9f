"""The human proxy: the dataset's reference answers, MATCH by the task, AGREE by the machine's checker."""

from __future__ import annotations

from pxp_tui.agents.proxy import ProxyHuman
from pxp_tui.engine import Agent
from pxp_tui.runs.seats import Seat


def seat(seat: Seat) -> Agent:
    return ProxyHuman(seat.task, seat.checker)
