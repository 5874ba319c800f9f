"""What ``pxp run`` prints while runs go on: a line per finished session, a line per measurement, and pauses."""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any


class SessionLines:
    """Prints one line per finished session."""

    def __init__(self, stream: Any = None, label: str = "") -> None:
        self.stream = stream or sys.stdout  # the current stdout, not the one at import
        self.label = label
        self.started = time.perf_counter()

    def session_started(self, session_id: int, instance: Any, order: int, total: int, history: Any) -> None:
        self.total = total

    def session_ended(self, record: Any, kept: bool) -> None:
        tags = " ".join(f"{m.tag.value}_{m.sender.short}" for m in record.messages)
        name = getattr(record.instance, "name", record.instance.id)
        width = len(str(self.total))
        line = f"{self.label}session {record.order + 1:>{width}}/{self.total}  {name[:28]:<28}  {record.stop.value:<8}  {tags}"
        print(line, file=self.stream, flush=True)


def evaluation_line(row: dict[str, Any]) -> None:
    """One line per measurement of the machine (``--evaluate``, ``--learn-gate``)."""
    when = "start" if row["phase"] == "start" else "end" if row["phase"] == "end" else f"after session {row['sessions']}"
    gate = "" if row["kept"] is None else ("  -> context kept" if row["kept"] else "  -> context not kept")
    print(
        f"  {row['split']:<4} {when:<17} ({row['context_sessions']} in context): accuracy {row['p_correct']:.2f}, "
        f"agreement {row['p_agreed']:.2f}, both {row['p_both']:.2f}{gate}",
        flush=True,
    )


def say(line: str) -> None:
    """``line`` on stderr, if there still is one (after SIGHUP the terminal may be gone)."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)
