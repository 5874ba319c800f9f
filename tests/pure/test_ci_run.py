"""`.ci/run`, run on a copy of the repository whose docs name stand-in commands: it runs all six, prints the time
each took and how it ended, and fails when any fails or a pytest command collects no tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: what `.ci/run` installs from Debian when missing: stand-ins here, so that it installs nothing
PROGRAMS = ("Xvfb", "xterm", "xwd", "xdpyinfo", "xdotool", "tmux", "kitty", "chromium")


#: `.ci/run`'s commands, in the order it runs them, and the marker each follows in CONTRIBUTING.md (README.md: tests)
MARKERS = {
    "lint": "lint-command",
    "docs_check": "docs-check-command",
    "tests": "test-command",
    "slow_tests": "slow-test-command",
    "oldest_tests": "oldest-test-command",
    "mutation": "mutation-ci-command",
}


def ci(tmp_path: Path, commands: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`.ci/run` in a copy whose README and CONTRIBUTING name these commands (name -> command) after their markers."""
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", checkout / ".ci" / "run")

    def block(marker: str, command: str) -> str:
        return f"<!-- {marker} -->\n```sh\n{command}\n```\n"

    (checkout / "README.md").write_text(block("test-command", commands["tests"]))
    (checkout / "CONTRIBUTING.md").write_text(
        "".join(block(MARKERS[name], command) for name, command in commands.items() if name != "tests")
    )
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    for program in PROGRAMS:
        (stand_ins / program).write_text("#!/bin/sh\n")
        (stand_ins / program).chmod(0o755)
    env = {**os.environ, "PATH": f"{stand_ins}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    return subprocess.run(["bash", str(checkout / ".ci" / "run")], capture_output=True, text=True, env=env, check=False)


def timings(output: str) -> dict[str, str]:
    """The end of the run's table: each command's name and how it ended, after its minutes:seconds."""
    table = output.split("ci: time per command (minutes:seconds):\n", 1)[1]
    return {m[1]: m[2] for m in re.finditer(r"^  (\w+) +\d+:\d\d(?:  (.*))?$", table, re.MULTILINE)}


def test_ci_prints_the_time_of_each_command_at_the_end_and_passes_when_all_pass(tmp_path: Path) -> None:
    done = ci(tmp_path, {name: f"echo ran {name}" for name in MARKERS})
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("ran ")] == [f"ran {name}" for name in MARKERS]
    assert timings(done.stdout) == {name: "passed" for name in MARKERS} | {"all": None}


@pytest.mark.parametrize(
    ("failing", "status", "said"),
    [
        ("tests", 5, "collected no tests"),
        ("oldest_tests", 5, "collected no tests"),
        ("slow_tests", 1, "failed (exit code 1)"),
        ("lint", 3, "failed (exit code 3)"),
        ("docs_check", 1, "failed (exit code 1)"),
        ("mutation", 1, "failed (exit code 1)"),
        ("mutation", 5, "failed (exit code 5)"),
    ],
)
def test_ci_fails_when_one_command_fails_or_collects_no_tests_and_still_runs_and_times_the_others(
    tmp_path: Path, failing: str, status: int, said: str
) -> None:
    commands = {name: f"echo ran {name}" for name in MARKERS}
    commands[failing] = f"echo ran {failing}; exit {status}"
    done = ci(tmp_path, commands)
    assert done.returncode == 1
    assert all(f"ran {name}" in done.stdout for name in commands)
    shown = timings(done.stdout)
    assert shown.pop(failing) == said
    assert shown == {name: "passed" for name in commands if name != failing} | {"all": None}
