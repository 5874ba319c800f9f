"""Widgets keep their styles in a ``.tcss`` file beside their module, loaded as their ``DEFAULT_CSS``.

So a widget brings its looks wherever it is mounted (the session screen, the review screens).
"""

from __future__ import annotations

from pathlib import Path


def beside(module_file: str) -> str:
    """The text of the ``.tcss`` file next to ``module_file`` (same name)."""
    return Path(module_file).with_suffix(".tcss").read_text(encoding="utf-8")
