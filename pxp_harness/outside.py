"""Outside readers of a blackboard, each in a process of its own, as a user would run them beside pxp.

``sqlite3`` (the Python module), ``pxp metrics``, ``pxp export --out -`` and the ``sqlite-utils`` CLI:
each opens the file, reads, and closes it. :class:`Readers` runs them one after another at random
moments until stopped.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

_COUNT = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=10)
print(conn.execute("SELECT COUNT(*) FROM " + sys.argv[2]).fetchone()[0])
conn.close()
"""


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def python_output(script: str, timeout: float = 180) -> str:
    """What ``script`` prints, run by this Python in a fresh process (this checkout's pxp_tui); its error if it fails."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env(), timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"the script failed: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def sqlite_count(db: Path, table: str = "messages") -> int:
    """``SELECT COUNT(*) FROM table`` by the ``sqlite3`` module in another process (a read-write connection)."""
    done = subprocess.run([sys.executable, "-c", _COUNT, str(db), table], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"the outside reader failed: {done.stderr.strip()}")
    return int(done.stdout)


def pxp_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pxp_tui", *args]


def commands(db: Path) -> list[list[str]]:
    """The outside readers: each a command that opens ``db``, reads it and closes it."""
    sqlite_utils = str(BIN / "sqlite-utils") if (BIN / "sqlite-utils").exists() else "sqlite-utils"
    return [
        [sys.executable, "-c", _COUNT, str(db), "messages"],
        pxp_command("metrics", "--db", str(db)),
        pxp_command("export", "--db", str(db), "--format", "csv", "--table", "messages", "--out", "-"),
        [sqlite_utils, "query", str(db), "SELECT COUNT(*) AS n FROM messages"],
        [sqlite_utils, "tables", str(db), "--counts"],
    ]


class Readers:
    """Outside readers at random moments (one at a time, ``pause`` seconds apart at most), in a thread."""

    def __init__(self, db: Path, rng: random.Random, *, pause: float = 0.5, kinds: list[list[str]] | None = None):
        self.db = db
        self.rng = rng
        self.pause = pause
        self.kinds = kinds or commands(db)
        self.runs = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Readers:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def _loop(self) -> None:
        while not self._stop.wait(self.rng.uniform(0, self.pause)):
            if not self.db.exists():
                continue
            command = self.rng.choice(self.kinds)
            done = subprocess.run(command, capture_output=True, text=True, env=env(), timeout=120)
            self.runs += 1
            # a reader may find the file mid-creation (no tables yet); anything else is a failure
            if done.returncode != 0 and "no such table" not in done.stderr:
                self.failures.append(f"{command[-1]!r}: {done.stderr.strip()[-300:]}")


def deleted_files(pid: int, db: Path) -> list[str]:
    """The descriptors of process ``pid`` on ``db`` or its -wal/-shm whose file was deleted."""
    found = []
    folder = Path(f"/proc/{pid}/fd")
    try:
        fds = list(folder.iterdir())
    except OSError:
        return []
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(db)) and target.endswith("(deleted)"):
            found.append(target)
    return found
