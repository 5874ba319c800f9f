"""A progress bar on stderr for long commands (``pxp import`` of a large file), drawn with rich (Textual's)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from pxp_tui.tasks.csvdata import ImportProgress


@contextmanager
def progress_bar(stream: TextIO | None = None) -> Iterator[ImportProgress | None]:
    """A callback drawing one bar per phase on ``stream`` (stderr) if it is a terminal; None otherwise.

    The bars are wiped when the block ends, so an error reported after them is still one line.
    """
    stream = stream or sys.stderr
    if not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description:<9}"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    bars: dict[str, TaskID] = {}
    with Progress(*columns, console=Console(file=stream), transient=True) as progress:

        def report(phase: str, done: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = progress.add_task(phase, total=total)
            progress.update(bars[phase], completed=done, total=total)

        yield report
