"""Many writers, one file: messages committed per second, and each write's wait for the write lock, with 1, 4 and 12
writer processes on one blackboard.

Each writer is a process of its own running a headless run as ``pxp run --headless`` does (the offline machine, the
human proxy, the DRUG demo): it makes its run, says it is ready, and drives the run when every writer is ready. The
throughput is every message committed over the time from the start to the last writer's end; the waits are each write
transaction's time from asking to holding the write lock (``Writer.waits``: in the process, then SQLite's), over every
writer. A writer that fails (SQLite's "database is locked", say) is counted.

    python benchmarks/many_writers.py [--writers 1,4,12] [--sessions 6] [--docs]

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
os.environ.setdefault("PXP_OFFLINE_LATENCY", "0")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def worker(db: Path, sessions: int, out: Path) -> int:
    """One writer: make a run, say "ready", wait for "go" on stdin, drive the run, write what it measured to ``out``."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.runs.config import RunConfig
    from pxp_tui.runs.create import create_run
    from pxp_tui.runs.execute import execute

    with Blackboard.open(db) as board:
        run_id = create_run(board, RunConfig(limit=sessions))
        writer = board.writer
        assert writer is not None
        print("ready", flush=True)
        sys.stdin.readline()
        writer.waits.clear()
        started = time.monotonic()
        failure = ""
        try:
            asyncio.run(execute(board, run_id))
        except Exception as exc:  # noqa: BLE001 - counted and reported, as pxp run would print it
            failure = f"{type(exc).__name__}: {exc}"
        ended = time.monotonic()
        sql = "SELECT COUNT(*) FROM messages m JOIN data d ON d.session_id = m.session_id WHERE d.run_id = ?"
        messages = board.db.execute(sql, [run_id]).fetchone()[0]
        out.write_text(
            json.dumps({"messages": messages, "waits": list(writer.waits), "seconds": ended - started, "failure": failure})
        )
    return 0


def trial(writers: int, sessions: int, folder: Path) -> dict:
    """``writers`` processes on one new file (the demo imported first); what they measured, together."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.runs.config import RunConfig
    from pxp_tui.runs.create import ensure_dataset

    db = folder / f"writers-{writers}.db"
    with Blackboard.open(db) as board:
        ensure_dataset(board, RunConfig())
    outs = [folder / f"writer-{writers}-{i}.json" for i in range(writers)]
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", str(db), str(sessions), str(out)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for out in outs
    ]
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
    return {
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
        "| writers | messages | seconds | messages / s | lock wait p50 | p95 | max | write transactions | writers failed |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['writers']} | {r['messages']} | {r['seconds']:.1f} | {r['per_second']:.1f} | "
            f"{r['p50'] * 1000:.1f} ms | {r['p95'] * 1000:.1f} ms | {r['max'] * 1000:.0f} ms | {r['transactions']} | "
            f"{r['failed']} |"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(worker(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writers", default="1,4,12", help="writer processes per trial, comma-separated (default: 1,4,12)")
    parser.add_argument("--sessions", type=int, default=6, help="sessions of each writer's run (default: 6)")
    parser.add_argument("--docs", action="store_true", help="write the table into docs/performance.md")
    args = parser.parse_args()
    counts = [int(part) for part in args.writers.split(",") if part.strip()]
    results = []
    with tempfile.TemporaryDirectory(prefix="pxp-many-writers-") as folder:
        for count in counts:
            result = trial(count, args.sessions, Path(folder))
            results.append(result)
            print(
                f"{count:>3} writers: {result['messages']} messages in {result['seconds']:.1f} s "
                f"({result['per_second']:.1f}/s); lock wait p50 {result['p50'] * 1000:.1f} ms, "
                f"p95 {result['p95'] * 1000:.1f} ms, max {result['max'] * 1000:.0f} ms; {result['failed']} failed",
                flush=True,
            )
            for failure in result["failures"]:
                print(f"    {failure}", flush=True)
    print()
    print(table(results))
    if args.docs:
        from benchmarks.docs_section import write_section

        body = (
            "Each writer is a process running a headless run (the offline machine, the human proxy, the DRUG demo, "
            f"{args.sessions} sessions) on one blackboard; all start together. *Messages / s*: every message committed, "
            "over the time from the start to the last writer's end (the offline machine's own work included: on a few "
            "cores the writers share the processors as much as the file). *Lock wait*: each write transaction's time "
            "from asking for the write lock to holding it. *Writers failed*: runs that stopped on a write "
            "(none should).\n\n" + table(results)
        )
        page = write_section("many-writers", "Many writers, one file", body)
        print(f"\nwritten to {page}")


if __name__ == "__main__":
    main()
