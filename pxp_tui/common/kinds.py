"""Who answers in the human's seat of a run (``runs.human_kind``)."""

from __future__ import annotations

from enum import Enum


class HumanKind(str, Enum):
    """The kinds of agent in the human's seat. Each kind's agent is built by the module that
    :data:`pxp_tui.runs.humans.HUMANS` names for it: a new kind is a member here (with its words in
    :data:`_WORDS`), a line there, and that module (see docs/ARCHITECTURE.md)."""

    LIVE = "live"  # an expert, answering in the app
    PROXY = "proxy"  # an oracle answering with the dataset's reference (controlled experiments)
    MODEL = "model"  # a second machine (an LLM, or the offline baseline's second reader): machine-machine sessions

    def __str__(self) -> str:
        return self.value

    @property
    def interactive(self) -> bool:
        """Whether a person answers (in the app): such a run cannot be driven headless, and its
        ``--human`` names the expert. Every other kind answers by itself while the app watches."""
        return self is HumanKind.LIVE

    @property
    def label(self) -> str:
        """The kind as the start screen offers it."""
        return _WORDS[self][0]

    @property
    def phrase(self) -> str:
        """The kind in a sentence ("the human proxy is answering")."""
        return _WORDS[self][1]


#: kind -> (label, phrase)
_WORDS: dict[HumanKind, tuple[str, str]] = {
    HumanKind.LIVE: ("live expert", "the expert"),
    HumanKind.PROXY: ("human proxy (the dataset's answers)", "the human proxy"),
    HumanKind.MODEL: ("another model (machine-machine)", "the other model"),
}
