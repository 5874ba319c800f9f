"""The crash campaign: kill -9 the real pxp at random moments beside outside readers, many times over.

Scenarios (pxp_harness/crash_scenarios.py; tests/real/test_durability.py runs a few trials of each):

- ``app``: the live app in tmux, the expert answering 1 + ctrl+s, with ``pxp review`` open beside it;
  kill -9 at a random turn, at the turn or a random delay after answering; resumed in the app;
- ``headless``: ``pxp run --headless``, kill -9 after a random number of printed session lines plus a
  random delay; resumed with ``--resume``;
- ``repeat``: the same with ``--repeat 3`` (three runs driven concurrently in one process).

Meanwhile outside readers, each a process of its own, open and close the file at random moments:
the ``sqlite3`` module, ``pxp metrics``, ``pxp export --out -`` and the ``sqlite-utils`` CLI. Each
trial checks: every message shown on screen (app) or printed (headless) is in the file; ``PRAGMA
integrity_check`` is ok; ``--resume`` finishes the run(s) with exactly the planned sessions, no ``j``
missing or twice (headless: message for message as an uninterrupted run); the review shows the
killed run as interrupted; the writer's /proc/PID/fd never names a deleted db, -wal or -shm.
Moments are drawn from a random generator seeded per trial (``--seed`` + trial number).

    python benchmarks/crash_campaign.py [--trials 20] [--scenarios app,headless,repeat] [--seed 1000]
                                        [--limit 12] [--app-limit 6] [--keep DIR] [--docs]

Prints a line per trial, then the table (``--docs``: also into docs/performance.md); exits 1 if any trial lost a
message or failed a check.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.docs_section import write_section  # noqa: E402 - first: it reads the load average as the benchmark starts
from pxp_harness.crash_scenarios import SCENARIOS, Trial, reference, run_trial  # noqa: E402


def table(results: dict[str, list[Trial]], seconds: dict[str, float]) -> str:
    header = [
        "scenario",
        "trials",
        "messages shown",
        "messages lost",
        "integrity failures",
        "resume failures",
        "deleted fds seen",
        "failed trials",
        "outside reads",
        "minutes",
    ]
    rows = [header]
    for scenario, trials in results.items():
        rows.append(
            [
                scenario,
                len(trials),
                sum(t.shown for t in trials),
                sum(t.lost for t in trials),
                sum(not t.integrity for t in trials),
                sum(not t.resumed for t in trials),
                sum(t.deleted for t in trials),
                sum(not t.ok for t in trials),
                sum(t.reads for t in trials),
                f"{seconds[scenario] / 60:.1f}",
            ]
        )
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(header))]
    lines = [
        "| "
        + " | ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True)))
        + " |"
        for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="trials per scenario (default: 20)")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}")
    parser.add_argument("--seed", type=int, default=1000, help="the first trial's seed (default: 1000)")
    parser.add_argument("--limit", type=int, default=12, help="sessions per headless run (default: 12)")
    parser.add_argument("--app-limit", type=int, default=6, help="sessions of the app's run (default: 6)")
    parser.add_argument("--keep", type=Path, help="keep the blackboards in this folder (default: a temporary one, removed)")
    parser.add_argument("--docs", action="store_true", help="also write the table into docs/performance.md")
    args = parser.parse_args()
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    if "app" in scenarios and shutil.which("tmux") is None:
        parser.error("the app scenario needs tmux")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="pxp-crash-"))
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[Trial]] = {}
    seconds: dict[str, float] = {}
    try:
        expected = reference(folder, args.limit) if set(scenarios) - {"app"} else None
        for scenario in scenarios:
            started = time.monotonic()
            results[scenario] = []
            for number in range(args.trials):
                seed = args.seed + number
                if scenario == "app":
                    trial = run_trial(scenario, folder, seed, limit=args.app_limit)
                else:
                    trial = run_trial(scenario, folder, seed, limit=args.limit, expected=expected)
                results[scenario].append(trial)
                verdict = "ok" if trial.ok else "FAILED: " + "; ".join(trial.problems or ["lost or damaged"])
                print(
                    f"{scenario:<8} seed {seed}: killed {trial.killed}; shown {trial.shown}, lost {trial.lost}, "
                    f"{trial.reads} outside reads; {verdict}",
                    flush=True,
                )
            seconds[scenario] = time.monotonic() - started
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print()
    print(table(results, seconds))
    failed = any(not t.ok for trials in results.values() for t in trials)
    if args.docs:
        shown = "; ".join(
            f"{scenario}: {min(t.shown for t in trials)}-{max(t.shown for t in trials)}"
            for scenario, trials in results.items()
            if trials
        )
        notes = [
            f"Messages shown per trial when the process was killed: {shown}.",
            "Every trial passed." if not failed else "**Some trials failed**: see the script's output.",
        ]
        write_section("crash_campaign", "Trials per scenario", table(results, seconds) + "\n\n" + " ".join(notes))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
