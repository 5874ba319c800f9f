"""Many writers, one file: messages committed per second, and each write's wait for the write lock, with 1, 4 and 12
writer processes on one blackboard.

Each writer is a process of its own that loads what its run needs, makes its run, says it is ready, and drives the
run when every writer is ready, with one of two kinds of agents:

- ``offline``: a headless run as ``pxp run --headless`` drives it (the offline machine, the human proxy, the DRUG demo,
  ``--sessions`` sessions, 6 by default): the machine's own work (RDKit) is most of the time;
- ``instant``: agents that answer at once (INIT, RATIFY, RATIFY: three messages a session, ``--instant-sessions``
  sessions, 100 by default), so that the file is the limit: every writer commits as fast as it is let in.

The throughput is every message committed over the time from the start to the last writer's end; the waits are each
write transaction's time from asking to holding the write lock (``Writer.waits``: in the process, then SQLite's),
over every writer. A writer that fails (SQLite's "database is locked", say) is counted.

A last trial runs 4 instant writers beside a ``pxp import`` of ``--import-pictures`` noisy pictures of 1 MB each.

    python benchmarks/many_writers.py [--writers 1,4,12] [--agents offline,instant] [--sessions 6] [--docs]

``--docs`` writes the table into docs/performance.md (benchmarks/docs_section.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.docs_section import write_section  # first: it reads the load average as the benchmark starts

os.environ.setdefault("PXP_OFFLINE_LATENCY", "0")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def worker(db: Path, agents: str, sessions: int, out: Path) -> int:
    """One writer: make a run, say "ready", wait for "go" on stdin, drive the run, write what it measured to ``out``."""
    from pxp_tui.blackboard import Blackboard

    with Blackboard.open(db) as board:
        drive = _offline(board, sessions) if agents == "offline" else _instant(board, sessions)
        writer = board.writer
        assert writer is not None
        print("ready", flush=True)
        sys.stdin.readline()
        writer.waits.clear()
        started = time.monotonic()
        failure = ""
        try:
            run_id = asyncio.run(drive())
        except Exception as exc:  # noqa: BLE001 - counted and reported, as pxp run would print it
            failure, run_id = f"{type(exc).__name__}: {exc}", getattr(drive, "run_id", 0)
        ended = time.monotonic()
        sql = "SELECT COUNT(*) FROM messages m JOIN data d ON d.session_id = m.session_id WHERE d.run_id = ?"
        messages = board.db.execute(sql, [run_id]).fetchone()[0]
        out.write_text(
            json.dumps({"messages": messages, "waits": list(writer.waits), "seconds": ended - started, "failure": failure})
        )
    return 0


def importer(db: Path, csv: Path, out: Path) -> int:
    """``pxp import`` of ``csv`` (RAD pictures) beside the writers: read and checked first, stored on "go"."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.tasks import get_task

    rows = get_task("rad").read_dataset(csv)
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.monotonic()
    with Blackboard.open(db) as board:
        board.add_dataset("beside", "rad", rows, source=str(csv))
    out.write_text(json.dumps({"seconds": time.monotonic() - started, "rows": len(rows)}))
    return 0


def _offline(board, sessions: int):
    """A headless run of the offline machine and the human proxy, its modules loaded (not measured)."""
    from pxp_tui.agents import offline
    from pxp_tui.agents.llm import load_litellm
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.create import create_run
    from pxp_tui.runs.execute import execute
    from pxp_tui.tasks import get_task

    for module in get_task("drug").slow_modules:  # what the run imports on first use
        __import__(module)
    offline.warm_up(load_litellm())
    run_id = create_run(board, RunConfig(limit=sessions))

    async def drive() -> int:
        await execute(board, run_id)
        return run_id

    drive.run_id = run_id  # type: ignore[attr-defined]
    return drive


def _instant(board, sessions: int):
    """A run of agents that answer at once, every session on the demo's first instance."""
    from benchmarks.engine_overhead import Instant
    from pxp_tui.config import RunConfig
    from pxp_tui.engine import RunSpec, interact

    (instance,) = board.instance_ids("demo-drug")[:1]
    config = RunConfig(task="drug", dataset="demo-drug", model="instant", n=10, k=3, context="none")
    run_id = board.create_run(config, [instance] * sessions)
    instances = board.instances([instance]) * sessions

    async def drive() -> int:
        await interact(RunSpec(run_id, n=10, k=3, context="none"), instances, Instant(), Instant(), board)
        return run_id

    drive.run_id = run_id  # type: ignore[attr-defined]
    return drive


def trial(writers: int, agents: str, sessions: int, folder: Path, beside: Path | None = None) -> dict:
    """``writers`` processes on one new file (the demo imported first), and ``pxp import`` of ``beside`` (a CSV of
    pictures) if given; what they measured, together."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.create import ensure_dataset

    name = f"{agents}-{writers}{'-import' if beside else ''}"
    db = folder / f"{name}.db"
    with Blackboard.open(db) as board:
        ensure_dataset(board, RunConfig())
    outs = [folder / f"{name}-{i}.json" for i in range(writers)]
    commands = [[sys.executable, __file__, "--worker", str(db), agents, str(sessions), str(out)] for out in outs]
    imported = folder / f"{name}-import.json"
    if beside is not None:
        commands.append([sys.executable, __file__, "--importer", str(db), str(beside), str(imported)])
    processes = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for command in commands]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready", "a writer did not start"
    started = time.monotonic()
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        process.wait()
    seconds = time.monotonic() - started
    found = [json.loads(out.read_text()) for out in outs if out.exists()]
    waits = sorted(w for f in found for w in f["waits"])
    messages = sum(f["messages"] for f in found)
    failed = writers - len(found) + sum(bool(f["failure"]) for f in found)
    if beside is not None:
        found_import = json.loads(imported.read_text()) if imported.exists() else None
        failed += found_import is None
        agents += f", an import beside ({found_import['rows'] if found_import else 0} pictures)"
    return {
        "agents": agents,
        "writers": writers,
        "messages": messages,
        "seconds": seconds,
        "per_second": messages / seconds,
        "p50": percentile(waits, 0.50),
        "p95": percentile(waits, 0.95),
        "max": waits[-1] if waits else 0.0,
        "transactions": len(waits),
        "failed": failed,
        "failures": sorted({f["failure"] for f in found if f["failure"]}),
    }


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, round(share * 100) - 1))]


def table(results: list[dict]) -> str:
    lines = [
        "| agents | writers | messages | seconds | messages / s | lock wait p50 | p95 | max | write transactions | writers failed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['agents']} | {r['writers']} | {r['messages']} | {r['seconds']:.1f} | {r['per_second']:.1f} | "
            f"{r['p50'] * 1000:.1f} ms | {r['p95'] * 1000:.1f} ms | {r['max'] * 1000:.0f} ms | {r['transactions']} | "
            f"{r['failed']} |"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(worker(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])))
    if len(sys.argv) > 1 and sys.argv[1] == "--importer":
        sys.exit(importer(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writers", default="1,4,12", help="writer processes per trial, comma-separated (default: 1,4,12)")
    parser.add_argument("--agents", default="offline,instant", help="offline, instant, or both (default: offline,instant)")
    parser.add_argument("--sessions", type=int, default=6, help="sessions of each offline writer's run (default: 6)")
    parser.add_argument("--instant-sessions", type=int, default=100, help="sessions of each instant writer's run (default: 100)")
    parser.add_argument(
        "--import-pictures",
        type=int,
        default=60,
        help="pictures (1 MB each) of a pxp import beside 4 instant writers, a last trial (0: none; default: 60)",
    )
    parser.add_argument("--docs", action="store_true", help="write the table into docs/performance.md")
    args = parser.parse_args()
    counts = [int(part) for part in args.writers.split(",") if part.strip()]
    kinds = [part.strip() for part in args.agents.split(",") if part.strip()]
    if not set(kinds) <= {"offline", "instant"}:
        parser.error("--agents: offline, instant, or both")
    results = []
    with tempfile.TemporaryDirectory(prefix="pxp-many-writers-") as folder:
        for agents in kinds:
            sessions = args.sessions if agents == "offline" else args.instant_sessions
            for count in counts:
                result = trial(count, agents, sessions, Path(folder))
                results.append(result)
                print(
                    f"{agents:>7}, {count:>3} writers: {result['messages']} messages in {result['seconds']:.1f} s "
                    f"({result['per_second']:.1f}/s); lock wait p50 {result['p50'] * 1000:.1f} ms, "
                    f"p95 {result['p95'] * 1000:.1f} ms, max {result['max'] * 1000:.0f} ms; {result['failed']} failed",
                    flush=True,
                )
                for failure in result["failures"]:
                    print(f"    {failure}", flush=True)
        if args.import_pictures:
            from pxp_harness.big_files import rad_csv

            csv = rad_csv(Path(folder) / "pictures", args.import_pictures, side=1000, noise=True)
            result = trial(4, "instant", args.instant_sessions, Path(folder), beside=csv)
            results.append(result)
            print(
                f"{result['agents']}: lock wait p95 {result['p95'] * 1000:.1f} ms, max {result['max'] * 1000:.0f} ms", flush=True
            )
    print()
    print(table(results))
    if args.docs:
        body = (
            "Each writer is a process driving a run of its own on one blackboard; all start together. *offline*: a "
            f"headless run (the offline machine, the human proxy, the DRUG demo, {args.sessions} sessions), whose "
            "machine's own work (RDKit) is most of the time, so the writers share the processors more than the file. "
            f"*instant*: agents that answer at once ({args.instant_sessions} sessions of three messages each), so that "
            "the file is the limit; the last row has a `pxp import` of noisy 1 MB pictures (written 4 MB per "
            "transaction) beside four of them (its pictures are not counted as messages, its transactions not as "
            "waits). *Messages / s*: every message committed, over the time from the start to the last "
            "writer's end. *Lock wait*: each write transaction's time from asking for the write lock to holding it. "
            "*Writers failed*: runs that stopped on a write (none should).\n\n" + table(results)
        )
        page = write_section("many-writers", "Many writers, one file", body)
        print(f"\nwritten to {page}")


if __name__ == "__main__":
    main()
