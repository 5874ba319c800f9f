"""A Textual app of one Static, for ``first_paint.py``: what Textual alone costs before its first frame.

    python benchmarks/first_paint.py --runs 7 -- "$PWD/.venv/bin/python" "$PWD/benchmarks/bare_textual.py" [--probe]

With ``--probe`` it imports textual-image first, whose import asks the terminal about graphics (as
``pxp`` does before its first frame). ``q`` quits.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import Static

if "--probe" in sys.argv:
    import textual_image.renderable  # noqa: F401 - asks the terminal for Sixel and kitty graphics


class Bare(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static("New run")


if __name__ == "__main__":
    Bare().run()
