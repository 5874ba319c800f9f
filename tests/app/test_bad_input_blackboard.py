"""Blackboards pxp cannot write: read-only files and folders, a newer schema, a full disk.

Writers (``pxp run``, ``pxp import``) refuse in one line with exit code 2 and leave the file byte for
byte as it was; readers (``pxp review``, ``metrics``, ``export``, ``datasets``) still read it. A disk
that fills during a run pauses it (exit code 1) with every committed message whole.

File permissions do not stop root: run as root, the read-only cases drop root's power to override
them (``setpriv --bounding-set=-dac_override,...``), and are skipped, saying so, where that is not
possible. The real full disk is a small tmpfs mounted in a private mount namespace (``unshare -m``),
skipped where that is not allowed; the other full-disk tests lower SQLite's ``max_page_count``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pxp_harness.big_files import drug_csv
from pxp_harness.cli_helpers import digest, pxp
from pxp_harness.full_disk import on_tmpfs
from pxp_tui.blackboard import Blackboard
from pxp_tui.blackboard.schema import SCHEMA_VERSION

from ..conftest import ROOT

MOLS = "key,name,input,output,explanation\nz,,CCCOC(C)=O,CC(=O)Cl.OCCC,Propyl ester.\n"

REVIEW = """
import asyncio, sys
from textual.widgets import DataTable
from pxp_tui.app.review import ReviewApp

async def main():
    async with ReviewApp(sys.argv[1]).run_test(size=(120, 36)) as pilot:
        for _ in range(3):
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
        print(pilot.app.screen.query_one("#runs-table", DataTable).row_count)

asyncio.run(main())
"""


def command(prefix: list[str], *argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PXP_OFFLINE_LATENCY": "0"}
    return subprocess.run(
        [*prefix, sys.executable, *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


@pytest.fixture(scope="module")
def unprivileged(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A command prefix under which file permissions hold (nothing when not root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and setpriv (to drop root's override of file permissions) is missing")
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    probe = tmp_path_factory.mktemp("probe") / "locked"
    probe.write_text("")
    probe.chmod(0o444)
    check = command(prefix, "-c", f"open({str(probe)!r}, 'w')", cwd=probe.parent)
    if check.returncode == 0:
        pytest.skip("running as root, and root's override of file permissions cannot be dropped here")
    return prefix


@pytest.fixture
def recorded(tmp_path: Path, capsys) -> Path:
    """A blackboard with a finished run and its dataset, in a folder of its own."""
    db = tmp_path / "board" / "sessions.db"
    code, _, err = pxp(capsys, "run", "--headless", "--limit", "2", "--db", db, "--quiet")
    assert code == 0, err
    (tmp_path / "more.csv").write_text(MOLS, encoding="utf-8")
    return db


def beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("locked", ["file", "folder", "both"])
def test_a_read_only_blackboard_refuses_writers_in_one_line_and_is_still_read(
    unprivileged: list[str], recorded: Path, locked: str
) -> None:
    db, folder, work = recorded, recorded.parent, recorded.parent.parent
    before, files = digest(db), beside(db)
    if locked in ("file", "both"):
        db.chmod(0o444)
    if locked in ("folder", "both"):
        folder.chmod(0o555)
    try:
        for argv in (["run", "--headless", "--limit", "1", "--quiet"], ["import", "drug", work / "more.csv"]):
            result = command(unprivileged, "-m", "pxp_tui", *argv, "--db", db, cwd=work)
            assert result.returncode == 2 and not result.stdout
            (line,) = result.stderr.splitlines()
            assert "read-only" in line and "pxp review, pxp metrics and pxp export still read it" in line
        metrics = command(unprivileged, "-m", "pxp_tui", "metrics", "--db", db, "--json", cwd=work)
        assert metrics.returncode == 0, metrics.stderr
        assert [run["run_id"] for run in json.loads(metrics.stdout)] == [1]
        exported = command(
            unprivileged, "-m", "pxp_tui", "export", "--db", db, "--format", "csv", "--out", work / "out", cwd=work
        )
        assert exported.returncode == 0, exported.stderr
        assert (work / "out" / "messages.csv").read_text().count("\n") > 2
        review = command(unprivileged, "-c", REVIEW, db, cwd=work)
        assert review.returncode == 0, review.stderr
        assert review.stdout.split() == ["1"]  # the runs list shows the run
        assert digest(db) == before and beside(db) == files  # nothing written, nothing left beside it
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)
    # made writable again, it takes writes: reading it left no read-only journal behind to block them
    result = command(unprivileged, "-m", "pxp_tui", "import", "drug", work / "more.csv", "--db", db, cwd=work)
    assert result.returncode == 0, result.stderr


def test_an_unreadable_blackboard_and_an_unmakeable_one_are_one_line(unprivileged: list[str], recorded: Path) -> None:
    db, work = recorded, recorded.parent.parent
    db.chmod(0o000)
    try:
        result = command(unprivileged, "-m", "pxp_tui", "metrics", "--db", db, cwd=work)
    finally:
        db.chmod(0o644)
    assert result.returncode == 2 and result.stderr == f"pxp: error: {db} cannot be read (permission denied)\n"
    locked = work / "locked"
    locked.mkdir(mode=0o555)
    result = command(
        unprivileged, "-m", "pxp_tui", "import", "drug", work / "more.csv", "--db", locked / "new" / "x.db", cwd=work
    )
    assert result.returncode == 2
    assert result.stderr == f"pxp: error: cannot make {locked / 'new' / 'x.db'}: the folder {locked} is read-only\n"
    assert not (locked / "new").exists()


def test_a_blackboard_from_a_newer_pxp_is_refused_by_every_command_unchanged(capsys, recorded: Path) -> None:
    conn = sqlite3.connect(recorded)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = digest(recorded)
    for argv in (
        ["run", "--headless"],
        ["import", "drug", recorded.parent.parent / "more.csv"],
        ["metrics"],
        ["review"],
        ["export", "--format", "csv"],
    ):
        code, out, err = pxp(capsys, *argv, "--db", recorded)
        assert code == 2 and not out, argv
        assert err == (
            f"pxp: error: {recorded} was written by a newer pxp-tui (schema {SCHEMA_VERSION + 1}; "
            f"this one reads up to {SCHEMA_VERSION})\n"
        )
        assert digest(recorded) == before


# -- a full disk --------------------------------------------------------------------------------------
@pytest.fixture
def small_disk(monkeypatch: pytest.MonkeyPatch):
    """``allow(pages)``: from now on, writers' connections may grow the file by that many pages only (SQLITE_FULL after)."""

    def allow(pages: int) -> None:
        opened = Blackboard.open.__func__  # type: ignore[attr-defined]

        def open_small(cls, path, *args, **kwargs):
            board = opened(cls, path, *args, **kwargs)
            if not kwargs.get("readonly"):
                used = board.db.execute("PRAGMA page_count").fetchone()[0]
                board.db.execute(f"PRAGMA max_page_count = {used + pages}")
            return board

        monkeypatch.setattr(Blackboard, "open", classmethod(open_small))

    return allow


def test_an_import_on_a_full_disk_says_so_and_changes_nothing(capsys, small_disk, recorded: Path, tmp_path: Path) -> None:
    csv = drug_csv(tmp_path / "many.csv", 200)
    before = digest(recorded)
    small_disk(2)
    code, out, err = pxp(capsys, "import", "drug", csv, "--db", recorded)
    assert code == 2 and not out
    assert err == f"pxp: error: {recorded}: the disk is full (database or disk is full); nothing imported\n"
    assert digest(recorded) == before


def check_whole(db: Path, run_id: int) -> list[tuple[int, int, int]]:
    """(session, j, n_messages) rows after checking the file's integrity, contiguous j, and n_messages."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        sessions = conn.execute("SELECT session_id, n_messages FROM data WHERE run_id = ? ORDER BY ord", [run_id]).fetchall()
        for session_id, n_messages in sessions:
            js = [r[0] for r in conn.execute("SELECT j FROM messages WHERE session_id = ? ORDER BY j", [session_id])]
            assert js == list(range(1, n_messages + 1))
            contexts = conn.execute("SELECT COUNT(*) FROM context WHERE session_id = ?", [session_id]).fetchone()[0]
            assert contexts == n_messages  # each message with its context entry: none half-written
        return sessions
    finally:
        conn.close()


def test_a_run_on_a_full_disk_pauses_whole_and_resumes(capsys, small_disk, recorded: Path, monkeypatch) -> None:
    small_disk(3)
    code, out, err = pxp(capsys, "run", "--headless", "--db", recorded)
    assert code == 1
    assert err.splitlines() == [
        "pxp: run 2 paused: the disk is full (database or disk is full); every message before it is kept",
        f"resume with: pxp run --headless --resume 2 --db {recorded}",
    ]
    with Blackboard.open(recorded, create=False, readonly=True) as board:
        run = board.run(2)
    assert (run.status, run.error) == ("paused", "the disk is full (database or disk is full)")
    printed = [line for line in out.splitlines() if line.startswith("session ")]
    sessions = check_whole(recorded, 2)
    assert len([s for s in sessions if s[1]]) >= len(printed)  # every session printed is in the file
    monkeypatch.undo()  # space again
    code, _, err = pxp(capsys, "run", "--headless", "--resume", "2", "--db", recorded, "--quiet")
    assert code == 0, err
    assert len(check_whole(recorded, 2)) == len(run.plan)


FULL_TMPFS = r"""
set -eu
cp "$FIRST" "$DISK/x.db"
free=$(df -k "$DISK" | tail -1 | awk '{print $4}')
dd if=/dev/zero of="$DISK/filler" bs=4k count=$(( free / 4 - 50 )) 2> /dev/null
set +e
"$PY" -m pxp_tui run --headless --db "$DISK/x.db" --quiet 2> "$OUT/stderr"
echo $? > "$OUT/code"
rm "$DISK/filler"
"$PY" -m pxp_tui run --headless --resume 2 --db "$DISK/x.db" --quiet > /dev/null 2>> "$OUT/stderr"
echo $? >> "$OUT/code"
cp "$DISK/x.db" "$OUT/x.db"
"""


@pytest.mark.slow
def test_a_really_full_disk_pauses_the_run_and_it_resumes_once_there_is_space(capsys, tmp_path: Path) -> None:
    """A blackboard holding one finished run (made here, in this process) is copied onto a 4 MB tmpfs, filled to
    its last 200 KB; there the real ``pxp`` runs the demo until the disk is full, then resumes with space again."""
    disk, out, first = tmp_path / "disk", tmp_path / "out", tmp_path / "first.db"
    out.mkdir()
    code, _, err = pxp(capsys, "run", "--headless", "--limit", "1", "--db", first, "--quiet")
    assert code == 0, err
    on_tmpfs(FULL_TMPFS, disk, PXP_OFFLINE_LATENCY="0", OUT=str(out), FIRST=str(first))
    assert (out / "code").read_text().split() == ["1", "0"], (out / "stderr").read_text()
    lines = (out / "stderr").read_text().splitlines()
    assert lines[:2] == [
        "pxp: run 2 paused: the disk is full (database or disk is full); every message before it is kept",
        f"resume with: pxp run --headless --resume 2 --db {disk / 'x.db'}",
    ]
    conn = sqlite3.connect(out / "x.db")
    status, plan = conn.execute("SELECT status, plan FROM runs WHERE id = 2").fetchone()
    conn.close()
    assert status == "done"
    assert len(check_whole(out / "x.db", 2)) == len(json.loads(plan))
    assert not stat.S_ISLNK((out / "x.db").lstat().st_mode)
