"""Rounds of an EVINCE debate with chosen measures, for the stop rules' tests."""

from __future__ import annotations

from dataclasses import fields

from pxp_tui.protocol.evince import RoundInformation


def measured(round: int, wd: float, nmi: float = 0.5, mi: float = 0.0) -> RoundInformation:
    """Round ``round`` with this Wasserstein distance, normalised MI and literal MI; every other measure 0."""
    zero = {f.name: 0.0 for f in fields(RoundInformation)}
    return RoundInformation(**{**zero, "round": round, "wasserstein": wd, "normalised_mi": nmi, "mutual_information": mi})
