"""What the terminal's watcher (``pxp_tui/app/shell/terminal_guard.py``) costs the app's start.

    python benchmarks/terminal_guard.py [--runs 7] [--docs]

Two figures, each in a pseudo-terminal: the time ``guard()`` takes in a process that has imported what
``pxp run`` has when the app starts (the watcher's own process starts beside it, in a thread), and the
first paint of the start screen (as ``benchmarks/first_paint.py`` measures it) with the watcher and with
``guard`` replaced by a no-op, run in turns so that both meet the same load. ``--docs`` writes the
figures into docs/reliability.md (its ``terminal-guard`` block).
"""

from __future__ import annotations

import argparse
import os
import pty
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs_section import ROOT, write_section
from benchmarks.first_paint import first_paint

PAGE = ROOT / "docs" / "reliability.md"

_GUARD_COST = """
import time
import pxp_tui.cli.main, pxp_tui.cli.run  # what `pxp run` has imported when the app starts
from pxp_tui.app.shell import terminal_guard
times = []
for _ in range({runs}):
    started = time.perf_counter()
    goodbye = terminal_guard.guard()
    times.append(time.perf_counter() - started)
    goodbye()
print(" ".join(f"{{t * 1000:.3f}}" for t in times))
"""

_APP = "from pxp_tui.cli.main import main; main()"
_APP_UNGUARDED = "from pxp_tui.app.shell import terminal_guard; terminal_guard.guard = lambda note='': (lambda: None); " + _APP


def guard_cost(runs: int) -> list[float]:
    """Milliseconds each ``guard()`` took in the calling process, in a pseudo-terminal."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", _GUARD_COST.format(runs=runs)])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return [float(t) for t in out.decode().split()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/reliability.md")
    args = parser.parse_args()
    costs = guard_cost(max(args.runs, 20))
    guarded: list[float] = []
    unguarded: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        first_paint([sys.executable, "-c", _APP], b"New run", tmp)  # warm the file cache, not counted
        for _ in range(args.runs):
            guarded.append(first_paint([sys.executable, "-c", _APP], b"New run", tmp))
            unguarded.append(first_paint([sys.executable, "-c", _APP_UNGUARDED], b"New run", tmp))
    body = "\n".join(
        [
            f"`guard()` in the app's process: median {statistics.median(costs):.2f} ms, worst {max(costs):.2f} ms "
            f"({len(costs)} calls).",
            "",
            "| first paint of `pxp` | median (s) | best (s) | worst (s) |",
            "|---|---:|---:|---:|",
            *(
                f"| {name} | {statistics.median(times):.3f} | {min(times):.3f} | {max(times):.3f} |"
                for name, times in (("with the watcher", guarded), ("without", unguarded))
            ),
            "",
            f"{args.runs} runs each, in turns.",
        ]
    )
    print(body)
    if args.docs:
        print(f"written to {write_section('terminal-guard', 'The terminal watcher at start-up', body, page=PAGE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
