"""A real full disk for tests: a small tmpfs, mounted by a shell script in a private mount namespace (``unshare -m``,
as root), so that nothing outside the test sees it. Skipped, saying why, where that is not possible."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def on_tmpfs(script: str, disk: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (``sh``) in a private mount namespace, with ``$DISK`` (an empty folder, where the script mounts
    its tmpfs), ``$PY`` (this Python), pxp importable, and ``env``; the test is skipped if the mount is refused."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("a real full disk needs a tmpfs mounted in a private namespace: unshare, as root")
    disk.mkdir(exist_ok=True)
    mounted = f'mount -t tmpfs -o size="$SIZE" tmpfs "$DISK" || exit 99\n{script}'
    full = {**os.environ, "PYTHONPATH": str(ROOT), "DISK": str(disk), "PY": sys.executable, "SIZE": "4m", **env}
    done = subprocess.run(
        [unshare, "-m", "--propagation", "private", "sh", "-c", mounted], env=full, capture_output=True, text=True, timeout=300
    )
    if done.returncode == 99:
        pytest.skip(f"tmpfs cannot be mounted here: {done.stderr.strip()}")
    return done
