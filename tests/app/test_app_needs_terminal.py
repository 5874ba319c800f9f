"""Without a terminal the app is refused at once, saying what to do; nothing is written and nothing spins.

A script or a job that runs ``pxp run`` without ``--headless`` has no terminal: the app could neither read a key nor
be seen, and Textual's input thread would spin on the empty input for ever while the run never moved.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.app.shell.launch import require_terminal

ROOT = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_run_without_a_terminal_is_refused_before_it_is_made(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    done = subprocess.run(
        [sys.executable, "-m", "pxp_tui", "run", "--db", str(db), "--model", "offline", "--human", "proxy"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)},
    )
    assert done.returncode == 2, done.stderr
    assert "the app needs a terminal" in done.stderr
    assert "pxp run --headless" in done.stderr
    assert not db.exists()  # no run made that nobody could answer


@pytest.mark.parametrize("command", [["app"], ["review"]])
def test_the_app_and_the_review_without_a_terminal_say_so(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sessions.db"
    assert pxp(capsys, "run", "--headless", "--model", "offline", "--human", "proxy", "--limit", "1", "--db", db)[0] == 0
    before = db.read_bytes()
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(sys, "__stdin__", io.StringIO())
    monkeypatch.setattr(sys, "__stderr__", Terminal())
    code, _, err = pxp(capsys, *command, "--db", db)
    assert code == 2
    assert "here standard input is not a terminal" in err
    assert db.read_bytes() == before


def test_what_is_missing_is_named_and_a_driver_of_its_own_needs_none() -> None:
    with pytest.raises(ValueError, match="here standard error is not a terminal"):
        require_terminal({}, (Terminal(), io.StringIO()))
    with pytest.raises(ValueError, match="here standard input and standard error are not a terminal"):
        require_terminal({}, (io.StringIO(), None))
    require_terminal({}, (Terminal(), Terminal()))
    require_terminal({"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}, (io.StringIO(), io.StringIO()))
