"""A real-terminal test that waits in vain says why in its own output: what the pane's command printed as it ended
and its exit code, or, while pxp still runs, what each of its threads is doing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pxp_harness.terminal import PXP, Tmux

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def tmux(tmp_path: Path):
    server = Tmux(tmp_path)
    yield server
    server.close()


def test_a_command_that_ended_leaves_its_last_words_and_its_exit_code_in_the_failure(tmux: Tmux) -> None:
    tmux.start("gone", ["sh", "-c", "echo 'run 1 is being written by another pxp process'; exit 2"])
    tmux.exit_code("gone")
    with pytest.raises(AssertionError) as failure:
        tmux.wait("gone", "Your turn", patience=1)
    said = str(failure.value)
    assert "the command in pane gone had ended: exit code 2" in said
    assert "run 1 is being written by another pxp process" in said


def test_a_pane_of_the_same_name_starts_afresh_once_its_command_ended(tmux: Tmux) -> None:
    tmux.start("again", ["sh", "-c", "echo first; exit 3"])
    assert tmux.exit_code("again") == 3
    tmux.start("again", ["sh", "-c", "echo second; sleep 60"])
    screen = tmux.wait("again", "second")
    assert "first" not in screen
    assert tmux.ended("again") == ""  # the first command's exit code is not taken for the second's


@pytest.mark.skipif(not PXP.exists(), reason="the pxp command is not installed next to this Python")
@pytest.mark.skipif(not PXP.with_name("py-spy").exists(), reason="py-spy is not installed next to this Python")
def test_a_pxp_still_running_shows_what_each_of_its_threads_is_doing(tmux: Tmux, tmp_path: Path) -> None:
    tmux.start("app", [str(PXP), "run", "--task", "drug", "--human", "alice", "--limit", "1", "--db", str(tmp_path / "s.db")])
    tmux.wait("app", "Your turn")
    with pytest.raises(AssertionError) as failure:
        tmux.wait("app", "a screen pxp never shows", patience=1)
    said = str(failure.value)
    assert "had ended" not in said
    assert "the pxp process's threads (py-spy dump):" in said
    assert "MainThread" in said  # py-spy names the threads it found
