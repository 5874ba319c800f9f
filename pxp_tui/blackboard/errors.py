"""The blackboard's errors: the message is one line for the user."""

from __future__ import annotations


class BlackboardError(Exception):
    """The file cannot be used as a blackboard, or a request does not fit what it holds."""


class WriteError(BlackboardError):
    """SQLite refused a write (the disk is full, the file read-only, a disk error); its transaction was rolled back."""
