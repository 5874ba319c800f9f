"""pxp-tui: PXP intelligibility-protocol sessions between a domain expert and an LLM."""

__version__ = "0.1.0"
