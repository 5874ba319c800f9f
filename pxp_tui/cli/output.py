"""What ``pxp`` prints for reading: text from a model, a dataset or a blackboard, made visible.

Light on purpose (``pxp`` alone, the app, imports it before its first paint).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from pxp_tui.common.visible import visible


class VisibleStream:
    """A text stream (standard output or error) that writes what it is given through :func:`visible`.

    ``pxp`` writes everything it prints for reading through one (:func:`visible_output`): a name, an
    explanation or an error quoting either can never send a terminal escape sequence. Data written
    for other programs (``pxp export --out -``, ``pxp report --format csv``) goes to :func:`data_stream`.
    """

    def __init__(self, stream: TextIO) -> None:
        self.exact = stream

    def write(self, text: str) -> int:
        self.exact.write(visible(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...: the stream's own
        return getattr(self.exact, name)


@contextlib.contextmanager
def visible_output() -> Iterator[None]:
    """Standard output and error as :class:`VisibleStream` objects while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if isinstance(s, VisibleStream) else VisibleStream(s) for s in saved)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def data_stream() -> TextIO:
    """Standard output for data (CSV, JSON, Markdown tables): exact to a file or a pipe, made visible on a terminal."""
    out: Any = sys.stdout
    exact = out.exact if isinstance(out, VisibleStream) else out
    return out if exact.isatty() else exact
