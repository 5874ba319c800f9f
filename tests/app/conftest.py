"""The app tier: tests that run pxp's Textual app in this process (Pilot, snapshots) or call a model through the
agents and litellm. litellm is imported once, at the end of collection, and frozen with the rest."""

from __future__ import annotations

import pytest

from ..conftest import freeze_what_every_test_keeps


def pytest_collection_finish(session: pytest.Session) -> None:
    freeze_what_every_test_keeps(with_litellm=True)
