"""Sixel data as xterm draws it whole: every colour register defined before the first band of pixels."""

from __future__ import annotations

import re

from PIL import Image

from pxp_harness.internals import sixel_data
from pxp_tui.app.picture.sixel import registers_first


def _xray_like() -> Image.Image:
    """A grey picture with many levels in its first band (the stray band came from such a band)."""
    image = Image.linear_gradient("L").resize((120, 90))
    return image.rotate(30, fillcolor=40)


def test_colour_registers_are_defined_before_the_first_pixel_and_none_is_lost() -> None:
    original = sixel_data(_xray_like())
    fixed = registers_first(original)
    start = re.match(r'\x1bP[0-9;]*q"[0-9;]*', fixed)
    assert start is not None
    body = fixed[start.end() :]
    definitions = re.match(r"(#\d+;2;\d+;\d+;\d+)*", body)
    assert definitions is not None and definitions.end() > 0
    # after the definitions, only selections (#N) and pixels: no register is defined inside a band
    assert not re.search(r"#\d+;2;", body[definitions.end() :])
    assert sorted(re.findall(r"#\d+;2;\d+;\d+;\d+", original)) == sorted(re.findall(r"#\d+;2;\d+;\d+;\d+", fixed))
    # the bands themselves are unchanged, a definition where a colour was first used now a selection of it
    assert re.sub(r"(#\d+);2;\d+;\d+;\d+", r"\1", original) == fixed[: start.end()] + body[definitions.end() :]


def test_data_that_is_not_a_sixel_image_is_left_alone() -> None:
    assert registers_first("hello #1;2;3;4;5") == "hello #1;2;3;4;5"
