"""Who answers in the human's seat of a run (``runs.human_kind``)."""

from __future__ import annotations

from enum import Enum


class HumanKind(str, Enum):
    """The kinds of agent in the human's seat. Each kind's agent is built by the module that
    :data:`pxp_tui.runs.humans.HUMANS` names for it: a new kind is a member here, a line there, and
    that module (see docs/ARCHITECTURE.md)."""

    PROXY = "proxy"  # an oracle answering with the dataset's reference (controlled experiments)
    LIVE = "live"  # an expert, answering in the app

    def __str__(self) -> str:
        return self.value

    @property
    def interactive(self) -> bool:
        """Whether a person answers (in the app): such a run cannot be driven headless."""
        return self is HumanKind.LIVE

    @property
    def phrase(self) -> str:
        """The kind in words, for messages ("the human proxy is answering")."""
        return {HumanKind.PROXY: "the human proxy", HumanKind.LIVE: "the expert"}[self]
