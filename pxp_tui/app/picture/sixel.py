"""Sixel pictures with every colour defined before the first band of pixels.

textual-image's encoder defines each colour register where it is first used, in the middle of the
image's first band of six pixel rows, and paints that band twice (solid blocks, then the real bits over
them). xterm (``-ti vt340``) draws such a band as a row of garbage: grey blocks and speckles across the
top of the picture, the stray band. The same data with the register definitions moved ahead of the
first band is drawn as it should be. :func:`registers_first` makes that move on the encoder's output
(nothing else changes: the same registers, the same bands), and :class:`SixelPicture` is textual-image's
Sixel widget with it. ``tests/real/test_real_terminals.py`` looks at xterm's pixels.
"""

from __future__ import annotations

import re

from pxp_tui.app.picture import textual_image_internals as internals

#: a colour register's definition (``#N;2;R;G;B``: RGB in percent); a selection is ``#N`` alone
_DEFINITION = re.compile(r"#(\d+);2;(\d+);(\d+);(\d+)")
#: the start of a Sixel image: DCS parameters ``q``, then optionally the raster attributes ``"Pan;Pad;Ph;Pv``
_START = re.compile(r'\x1bP[0-9;]*q(?:"[0-9;]*)?')


def registers_first(sixels: str) -> str:
    """``sixels`` with each colour register defined once, after the raster attributes and before any pixel."""
    start = _START.match(sixels)
    if start is None:
        return sixels
    head, body = sixels[: start.end()], sixels[start.end() :]
    definitions = dict.fromkeys(match.group(0) for match in _DEFINITION.finditer(body))
    return head + "".join(definitions) + _DEFINITION.sub(r"#\1", body)


#: textual-image's Sixel widget, its colour registers defined before the pixels (see the module)
SixelPicture = internals.sixel_widget(registers_first)
