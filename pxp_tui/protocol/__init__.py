"""The PXP protocol: tags, the AGENT tag decision, the INTERACT stop rule, intelligibility.

Pure functions only: no I/O, no clocks, no randomness.
"""

from pxp_tui.protocol.intelligibility import (
    RunCounts,
    SessionFlags,
    curve,
    run_counts,
    session_flags,
)
from pxp_tui.protocol.rules import (
    StopReason,
    allowed_tags,
    changed,
    decide_tag,
    sender_at,
    stop_reason,
)
from pxp_tui.protocol.tags import Sender, Tag

__all__ = [
    "RunCounts",
    "Sender",
    "SessionFlags",
    "StopReason",
    "Tag",
    "allowed_tags",
    "changed",
    "curve",
    "decide_tag",
    "run_counts",
    "sender_at",
    "session_flags",
    "stop_reason",
]
