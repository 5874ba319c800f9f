"""What ``pxp run`` prints while runs go on: a line per finished session, a line per measurement, and pauses."""

from __future__ import annotations

import contextlib
import shlex
import sys
from typing import Any

from pxp_tui.common.instance import Instance
from pxp_tui.common.visible import visible
from pxp_tui.engine import Message, Observer, SessionRecord
from pxp_tui.engine.types import unstated_rounds


class SessionLines(Observer):
    """Prints one line per finished session."""

    def __init__(self, stream: Any = None, label: str = "") -> None:
        self.stream = stream or sys.stdout  # the current stdout, not the one at import
        self.label = label
        self.total = 0

    def session_started(self, session_id: int, instance: Instance, order: int, total: int, history: tuple[Message, ...]) -> None:
        self.total = total

    def session_ended(self, record: SessionRecord, kept: bool) -> None:
        tags = " ".join(f"{m.tag.value}_{m.sender.short}" for m in record.messages)
        width = len(str(self.total))
        stop = record.stop.value if record.stop is not None else ""
        name = visible(record.instance.name, one_line=True)[:28]
        line = f"{self.label}session {record.order + 1:>{width}}/{self.total}  {name:<28}  {stop:<9}  {tags}"
        left_out = unstated_rounds(record.messages)
        if left_out:  # a reply stated no distribution: EVINCE measured neither that round nor stopped on it
            line += f"  (left out, no distribution stated: round {', '.join(map(str, left_out))})"
        print(line, file=self.stream, flush=True)


def rules(config: Any) -> str:
    """The run's rules that differ from the papers' defaults, as the run line shows them (", MATCH any-in-common")."""
    return "".join(f", {rule}" for rule in config.rules())


def resume_command(run_id: int | str, db: str) -> str:
    """The command that resumes run ``run_id`` (or ``RUN_ID``), quoted for a POSIX shell: pasted, it runs that and
    nothing else, whatever the path holds (spaces, ``;``, quotes)."""
    return shlex.join(["pxp", "run", "--headless", "--resume", str(run_id), "--db", str(db)])


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
