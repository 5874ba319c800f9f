"""Running ``pxp`` in-process for CLI tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pxp_tui.cli.main import main


def pxp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``pxp ARGV``."""
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def offline_run(capsys: pytest.CaptureFixture[str], db: Path, *extra: str) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--model", "offline", "--human", "proxy", "--db", db, "--quiet", *extra)
    assert code == 0, err
