"""The real tier: tests that drive other programs around pxp (tmux, xterm, kitty, Chromium through ``pxp serve``,
a pseudo-terminal) or kill it (kill -9, signals). pxp runs in processes of its own: this process needs no litellm."""

from __future__ import annotations

import pytest

from ..conftest import freeze_what_every_test_keeps


def pytest_collection_finish(session: pytest.Session) -> None:
    freeze_what_every_test_keeps(with_litellm=False)
