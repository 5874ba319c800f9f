"""The INTERACT loop: drives a machine and a human agent over instances, one session each.

The engine knows the protocol and the interfaces below; it knows nothing of SQL, litellm or the UI.
"""

from pxp_tui.engine.context import ContextPolicy
from pxp_tui.engine.interact import describe_error, interact
from pxp_tui.engine.types import (
    Agent,
    AgentError,
    InstanceSkippedError,
    Message,
    Observer,
    ParseError,
    ProtocolViolationError,
    Recorder,
    Reply,
    RunProgress,
    RunSpec,
    RunStatus,
    SessionRecord,
    Turn,
)

__all__ = [
    "Agent",
    "AgentError",
    "ContextPolicy",
    "InstanceSkippedError",
    "Message",
    "Observer",
    "ParseError",
    "ProtocolViolationError",
    "Recorder",
    "Reply",
    "RunProgress",
    "RunSpec",
    "RunStatus",
    "SessionRecord",
    "Turn",
    "describe_error",
    "interact",
]
