"""The human's seat of a machine-machine run watched in the app (EVINCE's debate): the second model answers until the
expert takes the seat, then the expert until they hand it back; each message records who wrote it (``model``:
the second model's name, or ``human:<name>``)."""

from __future__ import annotations

from pxp_tui.agents.live import LiveHuman
from pxp_tui.engine import Agent, Reply, Turn


class Relay:
    """Asks ``model`` or, while ``live.joined``, the expert (``live``), turn by turn."""

    def __init__(self, model: Agent, live: LiveHuman) -> None:
        self.model = model
        self.live = live

    async def respond(self, turn: Turn) -> Reply:
        agent: Agent = self.live if self.live.joined else self.model
        return await agent.respond(turn)
