"""The SQLite blackboard: runs, datasets, sessions (D), messages (M), context (C) and views."""

from pxp_tui.blackboard.errors import BlackboardError, WriteError
from pxp_tui.blackboard.store import Blackboard, now

__all__ = ["Blackboard", "BlackboardError", "WriteError", "now"]
