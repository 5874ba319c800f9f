"""The live expert: answers in the app, which hands its agent over (``execute(..., human=...)``)."""

from __future__ import annotations

from pxp_tui.blackboard import BlackboardError
from pxp_tui.engine import Agent
from pxp_tui.runs.seats import Seat


def seat(seat: Seat) -> Agent:
    if seat.live is None:
        raise BlackboardError(f"run {seat.run.id} has a live human ({seat.run.human}): open it in the app")
    return seat.live
