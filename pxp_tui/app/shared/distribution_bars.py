"""An agent's distribution as horizontal bars (EVINCE's top-k answer), shown under its message in the conversation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.content import Content

from pxp_tui.common.visible import visible
from pxp_tui.engine.types import distribution_of, unstated

#: the bar's width in cells at 100%
WIDTH = 20
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(p: float, width: int = WIDTH) -> str:
    """``p`` (0..1) as a bar of ``width`` cells, in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


#: under a message asked for a distribution whose reply stated none readable
UNSTATED = "(no distribution stated: this round is left out of EVINCE's measures)"


def bars_content(meta: Mapping[str, Any], width: int = WIDTH) -> Content | None:
    """The bars of a message's distribution (label, bar, percentage), most probable first; a line saying so when
    the reply stated none although one was asked for; None when none was asked for."""
    if unstated(meta):
        return Content.styled(UNSTATED, "$text-muted")
    found = distribution_of(meta)
    if not found:
        return None
    shown = sorted(((visible(label, one_line=True), p) for label, p in found.items()), key=lambda item: -item[1])
    side = min(max(len(label) for label, _ in shown), 24)
    lines = [
        Content.assemble(f"{label[:side]:<{side}} ", (f"{bar(p, width):<{width}}", "$accent"), f" {100 * p:3.0f}%")
        for label, p in shown
    ]
    return Content("\n").join(lines)
