"""A screen's breakpoint class (``-narrow``, ``-wide``) from its first frame.

Textual gives a screen the class of its width's breakpoint on the screen's first resize, after its
first layout: at 80x24 the first frame was the wide layout, and the next one the narrow, moved.
"""

from __future__ import annotations

from textual.screen import Screen


def apply_breakpoints(screen: Screen) -> None:
    """Give ``screen`` the class of the app's width now (call it in ``compose``); Textual keeps it up later."""
    points = screen.HORIZONTAL_BREAKPOINTS if screen.HORIZONTAL_BREAKPOINTS is not None else screen.app.HORIZONTAL_BREAKPOINTS
    width = screen.app.size.width
    chosen = next((name for edge, name in sorted(points or [], reverse=True) if width >= edge), None)
    for _, name in points or []:
        screen.set_class(name == chosen, name)
