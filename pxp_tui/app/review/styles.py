"""Each review widget keeps its styles in a ``.tcss`` file beside its module."""

from __future__ import annotations

from pathlib import Path


def beside(module_file: str) -> str:
    """The text of the ``.tcss`` file next to ``module_file`` (same name), for ``DEFAULT_CSS``."""
    return Path(module_file).with_suffix(".tcss").read_text(encoding="utf-8")
