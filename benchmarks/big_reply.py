"""A model reply far over ``--max-reply``: how soon the expert sees the run's pause, and at what memory.

The stub server of the tests (``pxp_harness/stub.py``, on 127.0.0.1, in a process of its own) answers the machine with a
reply of ``--size`` bytes (10 MB by default, a server ignoring ``max_tokens``); the checker is answered Yes. It is
refused unread as an unparseable reply, asked again twice (``PXP_RETRY_DELAY`` apart, 1 s by default), then the run
pauses. Reported for the app (``pxp run`` in tmux, as the expert starts it; and in Pilot, as the tests drive it) and for ``pxp run --headless``, on the DRUG demo:

- from the stub's last answer (when it began sending it) to the pause on the expert's screen (the failure notice),
  or to the headless run's line saying so;
- the peak resident memory of the process (each measurement is a process of its own);
- the blackboard's size after it;

each beside the same for a reply just over the limit (``--beside``, 300 KB), whose handling costs next to nothing.

    python benchmarks/big_reply.py [--size 10000000] [--beside 300000] [--docs]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.docs_section import write_section  # noqa: E402 - first: it reads the load average as the benchmark starts

MB = 2**20

#: the stub server in a process of its own: prints its address, then the time (time.time()) of each machine reply
STUB = """
import sys, time
from pxp_harness.stub import StubServer, drug_first, learner
size = int(sys.argv[1])
sentence = "the acid chloride is hydrolysed before the ester because this reasoning goes on, and "
big = ("Pathway: CCO.CC(=O)Cl\\nExplanation: " + sentence * (size // len(sentence) + 1))[:size]
good = learner("Pathway", drug_first)
def reply(request):
    if request.is_checker:
        return good(request)
    print(f"answer {time.time()}", flush=True)
    return big
with StubServer(reply=reply) as stub:
    print(stub.url, flush=True)
    sys.stdin.read()
"""


class Stub:
    """The stub server's process: its URL, and the times of its machine replies."""

    def __init__(self, size: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", STUB, str(size)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        self.answers: list[float] = []

    def last_answer(self) -> float:
        """The time of the last machine reply so far (reads what the stub has printed; call once it has answered)."""
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        for line in self.process.stdout:
            if line.startswith("answer "):
                self.answers.append(float(line.split()[1]))
        return self.answers[-1]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def peak_rss() -> float:
    """This process's peak resident memory (MB), from /proc/self/status."""
    found = re.search(r"^VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else float("nan")


def file_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists()) / MB


async def in_the_app(size: int, db: Path) -> tuple[float, float, float, str]:
    """(seconds from the last reply to the notice on screen, peak resident MB, blackboard MB, the notice's cause)."""
    from pxp_harness.app_helpers import live_app, wait_for
    from pxp_tui.app.session.failure import FailureScreen

    stub = Stub(size)
    try:
        async with live_app(db, limit=1, model="openai/stub", api_base=stub.url) as (app, pilot, _run_id):
            await wait_for(pilot, lambda: isinstance(app.screen, FailureScreen), "the failure notice")
            shown = time.time()
            cause = app.screen.cause
        return shown - stub.last_answer(), peak_rss(), file_mb(db), cause
    finally:
        stub.close()


def headless(size: int, db: Path) -> tuple[float, float, float, str]:
    """(seconds from the last reply to the pause printed, the process's peak resident MB, blackboard MB, that line)."""
    stub = Stub(size)
    try:
        pxp = str(Path(sys.executable).with_name("pxp"))
        command = [pxp, "run", "--headless", "--task", "drug", "--db", str(db), "--limit", "1", "--model", "openai/stub"]
        process = subprocess.Popen(
            [*command, "--api-base", stub.url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert process.stdout is not None
        said, printed = "(not paused)", float("nan")
        for line in process.stdout:
            if "paused" in line:
                said, printed = line.strip(), time.time()
        _pid, _status, usage = os.wait4(process.pid, 0)
        return printed - stub.last_answer(), usage.ru_maxrss / 1024, file_mb(db), said
    finally:
        stub.close()


def real_app(size: int, db: Path) -> tuple[float, float, float, str]:
    """``pxp run`` (the app) in tmux, 160x48: (seconds from the last reply to "The run stopped" on the screen, the
    app's peak resident MB then, blackboard MB, what it showed)."""
    stub = Stub(size)
    pxp = str(Path(sys.executable).with_name("pxp"))
    command = [pxp, "run", "--task", "drug", "--db", str(db), "--limit", "1", "--model", "openai/stub", "--api-base", stub.url]
    tmux = ["tmux", "-L", f"pxp-big-reply-{os.getpid()}"]
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "160", "-y", "48", "env", "-u", "COLUMNS", "-u", "LINES", *command], check=True
    )
    try:
        pid = int(subprocess.run([*tmux, "display", "-p", "#{pane_pid}"], capture_output=True, text=True, check=True).stdout)
        started = time.monotonic()
        while time.monotonic() - started < 600:
            screen = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True, check=False).stdout
            if "The run stopped" in screen:
                shown = time.time()
                found = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
                rss = int(found.group(1)) / 1024 if found else float("nan")
                return shown - stub.last_answer(), rss, file_mb(db), "The run stopped (the failure notice)"
            time.sleep(0.02)  # a look at the screen every 20 ms: the time is that close
        raise RuntimeError("no failure notice on the screen after 600 s")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
        stub.close()


def one(where: str, size: int) -> tuple[float, float, float, str]:
    """One measurement, in a process of its own (its peak memory its own): ``where`` is ``app`` or ``headless``."""
    command = [sys.executable, __file__, "--one", where, "--size", str(size)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds, rss, stored, said = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, rss, stored, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000, help="bytes of the machine's reply")
    parser.add_argument("--beside", type=int, default=300_000, help="bytes of a reply just over the limit, measured beside it")
    parser.add_argument("--one", choices=("app", "pxp", "headless"), help=argparse.SUPPRESS)  # one measurement, as JSON
    parser.add_argument("--docs", action="store_true", help="also write the figures into docs/performance.md")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if args.one:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "sessions.db"
            measure = {"app": lambda: asyncio.run(in_the_app(args.size, db)), "headless": lambda: headless(args.size, db)}
            found = measure.get(args.one, lambda: real_app(args.size, db))()
        print(json.dumps(found))
        return
    rows = [
        "| where | reply | last reply to the pause shown | peak resident memory | blackboard |",
        "|---|---:|---:|---:|---:|",
    ]
    places = (("pxp", "the app (`pxp run` in tmux, 160x48)"), ("app", "the app in Pilot"), ("headless", "`pxp run --headless`"))
    for where, label in places:
        for size in (args.beside, args.size):
            seconds, rss, stored, said = one(where, size)
            print(f"{label}, a reply of {size / MB:.2f} MB: {seconds:.2f} s from the last reply to the pause, peak {rss:.0f} MB")
            print(f"  blackboard {stored:.2f} MB; {said}", flush=True)
            rows.append(f"| {label} | {size / MB:.2f} MB | {seconds:.2f} s | {rss:.0f} MB | {stored:.2f} MB |")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.docs:
        body = "\n".join(rows) + (
            "\n\nEach reply is over `--max-reply` (256 KB): refused unread, asked again twice, then the run paused. "
            "Each row is a process of its own (its peak memory its own); the app's holds the benchmark's harness too."
        )
        write_section("big_reply", "A reply far over the size limit", body)


if __name__ == "__main__":
    main()
