"""Time from starting `pxp` to its first frame on the terminal (the start screen), in a pseudo-terminal.

    python benchmarks/first_paint.py [--runs 7] [--tmux] [--floor] [--docs] [-- COMMAND ...]

The pseudo-terminal answers the device-attributes query as xterm does (no Sixel) and reports a cell
size in pixels, like a real terminal; it does not answer the kitty graphics query (most terminals
do not), so textual-image waits out its 0.1 s timeout for that, as it would for a real user. The
clock starts before the process is spawned (interpreter start-up included) and stops when the
start screen's "New run" panel has been written. Prints each run and the median.

With ``--tmux`` the command runs in a real terminal emulator instead, a private tmux server (160 x 48),
whose screen is read every 5 ms; the times then include starting tmux (a few milliseconds).

With ``--floor`` it also measures the floor, ``bare_textual.py`` (a Textual app of one ``Static``), launched
in turn with ``pxp`` (one of each, ``--runs`` times), and prints the ratio of the medians: the target is pxp
within 1.25 times the floor, measured in the same sitting. ``--docs`` implies ``--floor`` and writes the
figures into docs/performance.md.

With ``--imports`` it also lists what ``pxp`` imports before its first frame, with ``python -X
importtime``'s cost of each (one more run, in the pseudo-terminal; the import times are those of a
warm file cache, and inflated a little by the measuring).
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
from docs_section import write_section

ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|_[^\x1b]*\x1b\\|[@-Z\\-_])")
REPLIES = {b"\x1b[c": b"\x1b[?64;1;2;6;9;15;18;21;22c", b"\x1b[16t": b"\x1b[6;20;10t"}


def first_paint(command: list[str], marker: bytes, cwd: str, cols: int = 160, rows: int = 48, limit: float = 30.0) -> float:
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of cols x rows cells of 10 x 20 pixels
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, cols * 10, rows * 20))
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
        os.chdir(cwd)
        os.execvp(command[0], command)
    seen = b""
    try:
        while time.perf_counter() - started < limit:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            for query, reply in REPLIES.items():
                if query in chunk:
                    os.write(fd, reply)
            seen += chunk
            if marker in ANSI.sub(b"", seen):
                return time.perf_counter() - started
        raise RuntimeError(f"no {marker!r} on the screen after {limit} s")
    finally:
        _stop(pid, fd)


def first_paint_tmux(command: list[str], marker: bytes, cwd: str, limit: float = 30.0) -> float:
    import subprocess
    import uuid

    socket = f"pxp-bench-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket]
    started = time.perf_counter()
    subprocess.run(
        [*tmux, "new-session", "-d", "-c", cwd, "-x", "160", "-y", "48", "env", "-u", "COLUMNS", "-u", "LINES", *command],
        check=True,
    )
    try:
        while time.perf_counter() - started < limit:
            screen = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, check=False).stdout
            if marker in screen:
                return time.perf_counter() - started
            time.sleep(0.005)
        raise RuntimeError(f"no {marker!r} on the screen after {limit} s")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
        # tmux (3.3) leaves its socket file behind
        Path(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", socket).unlink(missing_ok=True)


#: run under ``python -X importtime``: the terminal stays on a copy of stderr (Textual writes there), the
#: import times go to the file, and a line marks the first frame Textual writes
_IMPORTS_BOOT = """
import os, sys
terminal = os.dup(2)
log = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.dup2(log, 2)
sys.stderr = sys.__stderr__ = open(terminal, "w", closefd=False)
sys.argv = ["pxp"]
import textual.app
display = textual.app.App._display
def first_frame(self, screen, renderable):
    display(self, screen, renderable)
    if renderable is not None and not getattr(first_frame, "done", False):
        first_frame.done = True
        os.write(2, b"#first-frame\\n")
textual.app.App._display = first_frame
from pxp_tui.cli.main import main
main()
"""


def imports_before_first_frame(cwd: str, top: int = 25) -> str:
    """What ``pxp`` imports before its first frame, by top-level package, with ``-X importtime``'s cost."""
    log = Path(cwd) / "importtime.log"
    first_paint([sys.executable, "-X", "importtime", "-c", _IMPORTS_BOOT, str(log)], b"New run", cwd)
    packages: dict[str, float] = {}
    modules: list[tuple[float, str]] = []
    total = 0.0
    for line in log.read_text().splitlines():
        if line.startswith("#first-frame"):
            break
        if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
            continue
        own, _cumulative, name = (part.strip() for part in line[len("import time:") :].split("|", 2))
        total += int(own) / 1000
        packages[name.split(".")[0]] = packages.get(name.split(".")[0], 0.0) + int(own) / 1000
        modules.append((int(own) / 1000, name))
    lines = [
        f"imported before the first frame: {len(modules)} modules, {total:.0f} ms of import time "
        "(python -X importtime, self times, interpreter start-up excluded)",
        "  by top-level package:",
    ]
    for name, ms in sorted(packages.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"    {ms:>7.1f} ms  {name}")
    lines.append("  slowest modules (self time):")
    for ms, name in sorted(modules, reverse=True)[:top]:
        lines.append(f"    {ms:>7.1f} ms  {name}")
    return "\n".join(lines)


def _stop(pid: int, fd: int) -> None:
    try:
        os.write(fd, b"q")  # the start screen quits at once
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
            select.select([fd], [], [], 0.05)
            with contextlib.suppress(OSError):
                os.read(fd, 65536)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    finally:
        os.close(fd)


def describe(times: list[float]) -> str:
    return f"median {statistics.median(times):.3f} s, best {min(times):.3f} s, worst {max(times):.3f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--marker", default="New run", help="text that marks the first frame (default: New run)")
    parser.add_argument("--tmux", action="store_true", help="in a private tmux server rather than a bare pseudo-terminal")
    parser.add_argument("--imports", action="store_true", help="also list what is imported before the first frame, and its cost")
    parser.add_argument("--floor", action="store_true", help="also measure bare_textual.py, launched in turn with pxp")
    parser.add_argument("--docs", action="store_true", help="with --floor: also write the figures into docs/performance.md")
    parser.add_argument("command", nargs="*", help="what to start (default: pxp, in an empty directory)")
    args = parser.parse_args()
    if args.docs and args.command:
        parser.error("--docs measures pxp and its floor: give no COMMAND")
    args.floor = args.floor or args.docs
    floor = [sys.executable, str(Path(__file__).resolve().with_name("bare_textual.py"))]
    with tempfile.TemporaryDirectory() as tmp:
        pxp = shutil.which("pxp") or str(Path(sys.executable).with_name("pxp"))
        command = args.command or [pxp]
        measure = first_paint_tmux if args.tmux else first_paint
        measure(command, args.marker.encode(), tmp)  # warm the file cache once, not counted
        if args.floor:
            measure(floor, args.marker.encode(), tmp)
        times, floors = [], []
        for _ in range(args.runs):
            times.append(measure(command, args.marker.encode(), tmp))
            if args.floor:
                floors.append(measure(floor, args.marker.encode(), tmp))
    where = "in tmux" if args.tmux else "in a pseudo-terminal"
    print(f"first paint of `{' '.join(Path(c).name if i == 0 else c for i, c in enumerate(command))}` {where}")
    print(f"cores: {os.cpu_count()}  runs: {' '.join(f'{t:.3f}' for t in times)} s")
    print(describe(times))
    if args.floor:
        ratio = statistics.median(times) / statistics.median(floors)
        print(f"floor, bare_textual.py, launched in turn: {' '.join(f'{t:.3f}' for t in floors)} s")
        print(f"{describe(floors)}; pxp / floor = {ratio:.2f} (target: at most 1.25)")
    if args.docs:
        body = "\n".join(
            [
                f"| program, {where} | first paint, median | every launch |",
                "|---|---:|---:|",
                f"| `pxp` (the start screen) | **{statistics.median(times):.3f} s** | {min(times):.3f}-{max(times):.3f} s |",
                f"| the floor: Textual and one `Static` (`bare_textual.py`) | {statistics.median(floors):.3f} s | "
                f"{min(floors):.3f}-{max(floors):.3f} s |",
                "",
                f"pxp takes **{ratio:.2f} times** the floor (target: at most 1.25), {args.runs} launches of each, in turn.",
            ]
        )
        write_section("first_paint", "pxp and its floor, launched in turn", body)
    if args.imports:
        with tempfile.TemporaryDirectory() as tmp:
            print(imports_before_first_frame(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
