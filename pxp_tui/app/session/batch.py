"""Handlers whose changes reach the screen in one frame: :func:`batched` wraps them in ``app.batch_update()``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def batched(handler: Callable[P, R]) -> Callable[P, R]:
    """A method of a widget or screen whose updates (text, pictures, focus, layout) are painted together.

    Textual repaints nothing while a batch is open, so what the handler changes shows in one frame
    instead of a frame per widget touched.
    """

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        node: Any = args[0]
        with node.app.batch_update():
            return handler(*args, **kwargs)

    return wrapper
