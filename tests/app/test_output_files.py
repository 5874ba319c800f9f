"""What pxp writes for the user: the blackboard, exports and reports are made with the user's umask and never
writable by everyone, and an export or report that cannot be finished (a full disk) leaves nothing behind.

The full disk is simulated at one write (quick), and real: a small tmpfs mounted in a private mount namespace
(``unshare -m``, as root), skipped where that is refused.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import offline_run, pxp
from pxp_harness.full_disk import on_tmpfs
from pxp_tui.blackboard import Blackboard


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    ("mask", "file_mode", "folder_mode"), [(0o000, 0o644, 0o775), (0o022, 0o644, 0o755), (0o077, 0o600, 0o700)]
)
def test_the_blackboard_its_journal_and_its_folder_follow_the_umask_and_are_never_world_writable(
    tmp_path: Path, mask: int, file_mode: int, folder_mode: int
) -> None:
    db = tmp_path / "new" / "folder" / "sessions.db"
    with umask(mask), Blackboard.open(db) as board:
        board.add_dataset("d", "drug", [])  # a write: the -wal and -shm are there while the file is open
        for path in (db, db.with_name("sessions.db-wal"), db.with_name("sessions.db-shm")):
            assert mode(path) == file_mode, path.name
        assert mode(db.parent) == folder_mode and mode(db.parent.parent) == folder_mode


@pytest.mark.parametrize(("mask", "file_mode", "folder_mode"), [(0o000, 0o664, 0o775), (0o077, 0o600, 0o700)])
def test_exports_and_reports_follow_the_umask_and_are_never_world_writable(
    capsys, tmp_path: Path, mask: int, file_mode: int, folder_mode: int
) -> None:
    db = tmp_path / "sessions.db"
    offline_run(capsys, db, "--limit", "2")
    with umask(mask):
        assert pxp(capsys, "export", "--db", db, "--format", "csv", "--out", tmp_path / "a" / "export")[0] == 0
        assert pxp(capsys, "report", "--db", db, "--out", tmp_path / "report")[0] == 0
    written = [*(tmp_path / "a" / "export").iterdir(), *(tmp_path / "report").iterdir()]
    assert {p.name for p in written} >= {"messages.csv", "runs.csv", "report.md", "curves.png"}
    assert {p.name: mode(p) for p in written} == {p.name: file_mode for p in written}
    assert {mode(tmp_path / "a"), mode(tmp_path / "a" / "export"), mode(tmp_path / "report")} == {folder_mode}


# -- a full disk ------------------------------------------------------------------------------------------
def full_at(monkeypatch: pytest.MonkeyPatch, module: object, name: str, calls: int) -> None:
    """``module.name`` raises ENOSPC at its ``calls``-th call, as a write to a full disk does."""
    real = getattr(module, name)
    seen = []

    def filling(*args: object, **kwargs: object) -> object:
        seen.append(1)
        if len(seen) == calls:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, filling)


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_export_that_fills_the_disk_says_so_in_one_line_and_leaves_the_folder_as_it_was(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pxp_tui.blackboard import export

    db, out = tmp_path / "sessions.db", tmp_path / "export"
    offline_run(capsys, db, "--limit", "2")
    assert pxp(capsys, "export", "--db", db, "--format", "csv", "--out", out, "--table", "runs")[0] == 0
    before = listing(out)
    offline_run(capsys, db, "--limit", "1")  # runs.csv would change
    full_at(monkeypatch, export, "write", 4)
    code, printed, err = pxp(capsys, "export", "--db", db, "--format", "csv", "--out", out)
    assert code == 2 and printed == ""
    assert err == f"pxp: error: cannot export to {out}: the disk is full (No space left on device); nothing was written there\n"
    assert listing(out) == before  # the earlier runs.csv as it was, no table written
    assert os.listdir(out) == ["runs.csv"]  # no partial folder either
    full_at(monkeypatch, export, "write", 2)
    code, _, err = pxp(capsys, "export", "--db", db, "--format", "csv", "--out", tmp_path / "new" / "export")
    assert code == 2 and not (tmp_path / "new").exists()  # folders made for the export go with it


def test_a_report_that_fills_the_disk_says_so_in_one_line_and_writes_nothing(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pxp_tui.report import figure

    db = tmp_path / "sessions.db"
    offline_run(capsys, db, "--limit", "2")
    full_at(monkeypatch, figure, "draw", 1)
    code, printed, err = pxp(capsys, "report", "--db", db, "--out", tmp_path / "report")
    assert (code, printed) == (2, "")
    assert err.splitlines() == [
        f"pxp: error: cannot write the report to {tmp_path / 'report'}: the disk is full (No space left on device); "
        "nothing was written there"
    ]
    assert not (tmp_path / "report").exists()


FULL_TMPFS = r"""
set -u
mkdir "$DISK/export" && echo old > "$DISK/export/runs.csv"
free=$(df -k "$DISK" | tail -1 | awk '{print $4}')
dd if=/dev/zero of="$DISK/filler" bs=4k count=$(( free / 4 - 4 )) 2> /dev/null
"$PY" -m pxp_tui export --db "$DB" --format csv --out "$DISK/export" > "$OUT/export.out" 2> "$OUT/export.err"
echo $? > "$OUT/export.code"
"$PY" -m pxp_tui report --db "$DB" --out "$DISK/report" > "$OUT/report.out" 2> "$OUT/report.err"
echo $? > "$OUT/report.code"
dd if=/dev/zero of="$DISK/filler2" bs=4k 2> /dev/null
"$PY" -m pxp_tui metrics --db "$DB" > "$DISK/metrics.txt" 2> "$OUT/metrics.err"
echo $? > "$OUT/metrics.code"
rm "$DISK/filler" "$DISK/filler2"
cd "$DISK" && find . | sort > "$OUT/left" && cat export/runs.csv > "$OUT/old"
"""


@pytest.mark.slow
def test_on_a_really_full_disk_export_and_report_say_so_and_leave_nothing(capsys, tmp_path: Path) -> None:
    db, disk, out = tmp_path / "sessions.db", tmp_path / "disk", tmp_path / "out"
    out.mkdir()
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--limit", "2", "--db", db, "--quiet")
    assert code == 0, err
    on_tmpfs(FULL_TMPFS, disk, SIZE="2m", OUT=str(out), DB=str(db))
    read = {name: (out / name).read_text() for name in os.listdir(out)}
    assert (read["export.code"], read["report.code"], read["metrics.code"]) == ("2\n", "2\n", "1\n"), read
    assert read["export.err"] == (
        f"pxp: error: cannot export to {disk / 'export'}: the disk is full (No space left on device); nothing was written there\n"
    )
    assert read["report.err"] == (
        f"pxp: error: cannot write the report to {disk / 'report'}: the disk is full (No space left on device); "
        "nothing was written there\n"
    )
    assert read["metrics.err"] == "pxp: error: the disk is full (No space left on device)\n"  # its output redirected there
    assert read["export.out"] == read["report.out"] == ""
    assert read["left"].split() == [".", "./export", "./export/runs.csv", "./metrics.txt"]  # the earlier export as it was
    assert read["old"] == "old\n"
