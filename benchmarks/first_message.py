"""From enter pressed at `pxp`'s first frame to the machine's first message on the screen, in a pseudo-terminal.

    python benchmarks/first_message.py [--runs 5] [--later SECONDS] [--docs]

The bundled demo with the offline machine, as a new expert starts it: `pxp` in an empty directory, enter
sent as soon as the start screen's first frame is written, the clock stopped when the session screen shows the
machine's first message (its INIT in the conversation) and the expert's turn. The pseudo-terminal answers as
xterm does, and the screen is read back by pyte. Target: at most 1.0 s (median).

``--docs`` writes the table into docs/performance.md (on a quiet machine only: the load average is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_section import write_section  # at the top: it reads the load as the benchmark starts

ROOT = Path(__file__).resolve().parent.parent
#: what the pseudo-terminal answers: xterm's device attributes (no Sixel) and a cell of 10 x 20 pixels
REPLIES = {b"\x1b[c": b"\x1b[?64;1;2;6;9;15;18;21;22c", b"\x1b[16t": b"\x1b[6;20;10t"}
FIRST_FRAME = re.compile(r"Start \(enter\)")
FIRST_MESSAGE = re.compile(r"machine\s+INIT(?s:.*)Your turn")
#: target, in seconds (DESIGN.md section 6)
TARGET = 1.0


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) used so far by process ``pid`` and its living descendants (RDKit's workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, parents = 0.0, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    family = {pid}
    grew = True
    while grew:
        more = {child for child, (parent, _) in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    for member in family:
        total += parents.get(member, (0, 0.0))[1]
    return total


#: CPU seconds of each launch from enter to the first message (pxp and its workers): steadier than times under load
CPU: list[float] = []


def first_message(command: list[str], cwd: str, env: dict[str, str], limit: float = 120.0, later: float = 0.0) -> float:
    """Seconds from enter at the first frame to the machine's first message; ``later``: seconds after the first frame before enter (an expert who reads the form first)."""
    import pyte

    screen = pyte.Screen(160, 48)
    stream = pyte.ByteStream(screen)
    pid, fd = pty.fork()
    if pid == 0:  # the child: 160 x 48 cells of 10 x 20 pixels
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 1600, 960))
        os.chdir(cwd)
        os.execvpe(command[0], command, env)
    started = time.perf_counter()
    pressed: float | None = None
    try:
        while time.perf_counter() - started < limit:
            if not select.select([fd], [], [], 0.01)[0]:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            for query, reply in REPLIES.items():
                if query in chunk:
                    os.write(fd, reply)
            stream.feed(chunk)
            text = "\n".join(screen.display)
            if pressed is None and FIRST_FRAME.search(text):
                if later:
                    time.sleep(later)
                os.write(fd, b"\r")
                pressed, cpu = time.perf_counter(), cpu_seconds(pid)
            elif pressed is not None and FIRST_MESSAGE.search(text):
                took = time.perf_counter() - pressed
                CPU.append(cpu_seconds(pid) - cpu)
                return took
        raise RuntimeError(f"no first message after {limit} s; the screen:\n" + "\n".join(screen.display))
    finally:
        _stop(pid, fd)


def _stop(pid: int, fd: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    os.close(fd)


def describe(times: list[float]) -> str:
    return f"median {statistics.median(times):.3f} s, best {min(times):.3f} s, worst {max(times):.3f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--later", type=float, default=0.0, help="seconds after the first frame before enter (default 0)")
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/performance.md")
    args = parser.parse_args()
    pxp = shutil.which("pxp") or str(Path(sys.executable).with_name("pxp"))
    load = os.getloadavg()[0]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp,
            "TERM": "xterm-256color",
            "PXP_CONFIG_DIR": str(Path(tmp) / "config"),
            "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": str(ROOT),
        }
        for n in range(args.runs + 1):  # the first warms the file cache, not counted
            with tempfile.TemporaryDirectory(dir=tmp) as cwd:
                took = first_message([pxp], cwd, env, later=args.later)
            if n:
                times.append(took)
    print("enter at the first frame to the machine's first message (offline), in a pseudo-terminal")
    print(f"cores: {os.cpu_count()}  load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"runs: {' '.join(f'{t:.3f}' for t in times)} s; {describe(times)}")
    print(f"CPU from enter to the first message (pxp and its workers): {' '.join(f'{t:.2f}' for t in CPU[1:])} s")
    print(f"target: at most {TARGET:.1f} s (median)")
    if args.docs:
        rows = [
            "| machine | enter to the first message, median | every launch |",
            "|---|---:|---:|",
            f"| offline | **{statistics.median(times):.3f} s** | {min(times):.3f}-{max(times):.3f} s |",
        ]
        rows += ["", f"{args.runs} launches, {os.cpu_count()} cores, load average {load:.1f} at the start."]
        write_section("first_message", "enter at the first frame to the first message", "\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
