"""A second machine in the human's seat (``--human model:<litellm model>``, or ``model:offline``): EVINCE's debate.

It answers under the same tag table as the machine (MATCH is the task's, AGREE the shared checker's,
tags by the AGENT procedure), with its own model and ``--human-temperature``; both agents read the
other as "The other expert". ``model:offline`` is the task's second offline reader
(``pxp-offline/<task>-second``: for RAD coarser features and a warmer softmax than the machine's).
"""

from __future__ import annotations

from pxp_tui.agents.live import LiveHuman
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.agents.relay import Relay
from pxp_tui.common.models import OFFLINE, OFFLINE_PROVIDER
from pxp_tui.engine import Agent
from pxp_tui.runs.seats import Seat, debate_of
from pxp_tui.tasks import SECOND_SUFFIX
from pxp_tui.tasks.base import OTHER_EXPERT


def seat(seat: Seat) -> Agent:
    config = seat.config
    model = config.human_model or OFFLINE
    name = f"{OFFLINE_PROVIDER}/{seat.task.offline_name}{SECOND_SUFFIX}" if model == OFFLINE else model
    generation = dict(seat.task.generation)
    if config.max_tokens is not None:
        generation["max_tokens"] = config.max_tokens
    if config.human_temperature is not None:
        generation["temperature"] = config.human_temperature
    agent = MachineAgent(
        seat.task,
        seat.client(name, config.human_api_base),
        seat.checker,
        seat="human",
        other=OTHER_EXPERT,
        debate=debate_of(config),
        **generation,
    )
    if isinstance(seat.live, LiveHuman):  # watched in the app: the expert may step in at any turn
        return Relay(agent, seat.live)
    return agent
