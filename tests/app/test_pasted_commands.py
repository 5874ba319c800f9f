"""Every command pxp prints for the user to paste is quoted for the shell: pasted, it runs that command and nothing
else, whatever the blackboard's path holds (spaces, ``;``, ``$(...)``, quotes).

The check pastes each printed command into a real ``sh``, with ``pxp`` (and ``scp``) standing for a function
that prints the arguments it got, and looks for a file the rest of the path would have made.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_harness.stub import Injected, StubServer
from pxp_tui.app.picture import desktop
from pxp_tui.app.session.summary import next_steps
from pxp_tui.blackboard import BlackboardError
from pxp_tui.blackboard.records import Run
from pxp_tui.runs.copies import check_resumable
from pxp_tui.tasks import get_task

from .test_desktop import xray

#: a folder name a shell would run two commands from, were it pasted unquoted
HOSTILE = "it's a; touch PWNED $(touch PWNED2) `touch PWNED3`"


def pasted(command: str, where: Path) -> list[str]:
    """The arguments ``command`` (one line, as printed) gives ``pxp`` or ``scp`` when pasted into ``sh`` in ``where``."""
    functions = "pxp() { printf '%s\\n' pxp \"$@\"; }; scp() { printf '%s\\n' scp \"$@\"; }; "
    done = subprocess.run(["sh", "-c", functions + command], cwd=where, capture_output=True, text=True, timeout=30, check=True)
    assert not any(where.glob("PWNED*")), "the pasted line ran more than the command"
    return done.stdout.splitlines()


def test_the_resume_hint_of_a_paused_run_pastes_as_one_command(capsys, tmp_path: Path) -> None:
    db = tmp_path / HOSTILE / "my sessions.db"
    with StubServer(reply=lambda request: Injected(status=500)) as stub:
        code, _, err = pxp(
            capsys, "run", "--headless", "--db", db, "--model", "openai/stub", "--api-base", stub.url, "--retries", "0"
        )
    assert code == 1
    hint = next(line for line in err.splitlines() if line.startswith("resume with: "))
    assert pasted(hint.removeprefix("resume with: "), tmp_path) == ["pxp", "run", "--headless", "--resume", "1", "--db", str(db)]


def test_the_summary_screens_commands_run_as_shown(tmp_path: Path) -> None:
    db = tmp_path / HOSTILE / "s.db"
    report, export = [line.strip() for line in next_steps(3, db).plain.splitlines() if line.strip().startswith("pxp ")]
    assert pasted(report, tmp_path) == ["pxp", "report", "--runs", "3", "--db", str(db)]
    assert pasted(export, tmp_path) == ["pxp", "export", "--run", "3", "--format", "csv", "--db", str(db)]


def test_the_command_a_copys_refusal_names_pastes_as_one_command(tmp_path: Path) -> None:
    original = tmp_path / HOSTILE / "alice.db"
    row = {
        "id": 4,
        "uid": "u",
        "task": "drug",
        "dataset": "d",
        "model": "offline",
        "checker": "offline",
        "human_kind": "proxy",
        "expert": None,
        "n": 10,
        "k": 3,
        "context": "all",
        "seed": None,
        "split": "train",
        "experiment": None,
        "status": "paused",
        "error": None,
        "plan": "[]",
        "options": {"merged_from": {"file": "alice.db", "path": str(original), "run_id": 2}},
        "created_at": "",
        "updated_at": "",
        "finished_at": None,
    }
    with pytest.raises(BlackboardError) as refused:
        check_resumable(Run.from_row(row))
    command = str(refused.value).split("continue it there (")[1].rsplit("), then merge again")[0]
    assert pasted(command, tmp_path) == ["pxp", "run", "--resume", "2", "--db", str(original)]


def test_the_scp_line_for_a_picture_pastes_as_one_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / HOSTILE))
    outcome = desktop.open_picture(get_task("rad"), xray(), env={"SSH_CONNECTION": "1 2 3 4"}, platform="linux")
    command = outcome.message.split("(copy it with: ")[1].removesuffix(")")
    assert pasted(command, tmp_path) == ["scp", f"{socket.gethostname()}:{outcome.path}", "."]
