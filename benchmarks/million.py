"""Build a blackboard with about one million messages, then time what a reviewer opens on it.

    python benchmarks/million.py [--db PATH] [--runs 100] [--sessions 1800] [--keep] [--docs]

The file is written directly (bulk inserts, no engine), with sessions of every intelligibility
class drawn at random. Then each view is timed on a fresh read-only connection, as the review
screens and ``pxp metrics`` / ``pxp report`` open it: its figures are in docs/performance.md (``--docs`` writes them).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.docs_section import write_section  # noqa: E402 - first: it reads the load average as the benchmark starts
from pxp_tui.blackboard import Blackboard  # noqa: E402
from pxp_tui.common.kinds import HumanKind  # noqa: E402
from pxp_tui.config import RunConfig  # noqa: E402
from pxp_tui.tasks.base import DatasetRow  # noqa: E402

#: tag sequences from j = 1, one per intelligibility class (and a few more)
SCRIPTS = (
    ["INIT", "RATIFY", "RATIFY"],
    ["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"],
    ["INIT", "REVISE", "REVISE", "RATIFY", "RATIFY"],
    ["INIT", "REFUTE", "REFUTE", "REJECT"],
    ["INIT", "RATIFY", "REFUTE", "REFUTE", "RATIFY", "RATIFY"],
    ["INIT"] + ["REFUTE"] * 9,
    ["INIT", "REFUTE", "REVISE", "REFUTE", "REVISE", "REJECT"],
)
WORDS = [
    "amide",
    "ester",
    "ether",
    "coupling",
    "acylation",
    "alkylation",
    "reduction",
    "oxidation",
    "amine",
    "acid",
    "chloride",
    "boronic",
]


def build(path: Path, runs: int, sessions: int, seed: int = 0) -> int:
    """Write ``runs`` runs of ``sessions`` sessions each; return the number of messages."""
    rng = random.Random(seed)
    board = Blackboard.open(path)
    rows = [DatasetRow(f"m{i}", "train", "CCO", "CC.O", "an ester hydrolysis") for i in range(sessions)]
    board.add_dataset("bench", "drug", rows)
    ids = board.instance_ids("bench")
    db = board.db
    session_id, total = 0, 0
    for r in range(runs):
        humans = ("proxy", "alice", "bob")
        run_id = board.create_run(
            RunConfig(
                dataset="bench",
                model="offline",
                checker="offline",
                human_kind=HumanKind.PROXY if r % 3 == 0 else HumanKind.LIVE,
                expert=None if r % 3 == 0 else humans[r % 3],
                experiment=f"exp{r // 5}",
            ),
            ids,
        )
        data, messages = [], []
        for order, instance in enumerate(ids):
            session_id += 1
            tags = rng.choice(SCRIPTS)
            stop = "rejected" if tags[-1] == "REJECT" else ("ratified" if tags[-1] == "RATIFY" else "bound")
            data.append(
                {
                    "session_id": session_id,
                    "run_id": run_id,
                    "instance_id": instance,
                    "ord": order,
                    "started_at": "2025-01-01T00:00:00",
                    "ended_at": "2025-01-01T00:01:00",
                    "stop_reason": stop,
                    "n_messages": len(tags),
                }
            )
            for j, tag in enumerate(tags, start=1):
                sender = "machine" if j % 2 else "human"
                messages.append(
                    {
                        "session_id": session_id,
                        "j": j,
                        "sender": sender,
                        "receiver": "human" if j % 2 else "machine",
                        "tag": tag,
                        "prediction": "CC.O",
                        "explanation": " ".join(rng.choices(WORDS, k=12)),
                        "created_at": "2025-01-01T00:00:30",
                    }
                )
        with db.atomic():
            db["data"].insert_all(data, batch_size=2000)
            db["messages"].insert_all(messages, batch_size=2000)
        db.execute("UPDATE runs SET status = 'done' WHERE id = ?", [run_id])
        db.conn.commit()
        total += len(messages)
    db.execute("ANALYZE")
    board.close()
    return total


def timed(label: str, fn, rows: list[str], repeat: int = 5) -> float:
    """Print (and add to ``rows``) the first call's time (cold caches) and the median of ``repeat`` calls; return the first."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    rows.append(f"| {label} | {times[0] * 1000:.0f} ms | {statistics.median(times) * 1000:.0f} ms |")
    print(rows[-1])
    return times[0]


def report_all(board: Blackboard) -> None:
    from pxp_tui.report import columns

    for column in columns.columns(board, columns.select(board), "experiment"):
        column.table, column.curve  # noqa: B018 - computed, as the report renders them


def measure(path: Path, rows: list[str] | None = None) -> dict[str, float]:
    """Time each view on a read-only connection; return label -> first time in seconds. The table's lines (and a
    first line saying what the file holds) are added to ``rows``."""
    from pxp_tui.blackboard import review
    from pxp_tui.blackboard.curves import run_curves
    from pxp_tui.blackboard.metrics import run_rows

    board = Blackboard.open(path, create=False, readonly=True)
    count = board.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    sessions = board.db.execute("SELECT COUNT(*) FROM data").fetchone()[0]
    runs = board.run_ids()
    rows = [] if rows is None else rows
    rows.append(f"{count:,} messages, {sessions:,} sessions, {len(runs)} run{'s' if len(runs) > 1 else ''}; page cache warm:\n")
    print(f"{path}: {rows[0]}")
    rows.append("| view | first | median of 5 |\n|---|---:|---:|")
    print(rows[-1])
    last = runs[-1]
    experiment = board.run(last).config.experiment
    five = [r for r in runs if board.run(r).config.experiment == experiment]
    results = {
        "metrics: every run's table (run_intelligibility view)": timed(
            "metrics: every run's table (`run_intelligibility`)",
            lambda: run_rows(board),
            rows,
        ),
        "metrics: one run": timed("metrics: one run", lambda: run_rows(board, [last]), rows),
        "review: runs list with counts": timed("review: runs list with counts", lambda: review.runs(board), rows),
        "review: a run's sessions, first page": timed(
            "review: a run's sessions, first page",
            lambda: review.sessions(board, last),
            rows,
        ),
        "review: one run's row": timed("review: one run's row", lambda: review.runs_row(board, last), rows),
        "review: sorted by tag sequence, last page": timed(
            "review: sorted by tag sequence, last page",
            lambda: review.sessions(
                board, last, review.Query(sort="tags", descending=True, offset=max(0, sessions // len(runs) - 50))
            ),
            rows,
        ),
        "review: filter two-way": timed(
            "review: filter two-way",
            lambda: review.sessions(board, last, review.Query(kind="two_way")),
            rows,
        ),
        "review: filter text in explanations": timed(
            "review: text filter 'boronic acid'",
            lambda: review.sessions(board, last, review.Query(text="boronic acid")),
            rows,
        ),
        "review: one session replayed": timed(
            "review: one session replayed",
            lambda: review.replay(board, review.sessions(board, last).rows[0].session_id),
            rows,
        ),
        "report: curves of an experiment of 5 runs": timed(
            f"report: curves of an experiment of {len(five)} run(s)",
            lambda: run_curves(board, five),
            rows,
        ),
        "report: every column of the report by experiment": timed(
            "report: table and curves, one column per experiment",
            lambda: report_all(board),
            rows,
        ),
    }
    board.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="where to build (default: a temporary file)")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=1800, help="sessions per run")
    parser.add_argument("--keep", action="store_true", help="keep the file")
    parser.add_argument("--reuse", action="store_true", help="time an existing --db without rebuilding it")
    parser.add_argument("--docs", action="store_true", help="also write the table into docs/performance.md")
    args = parser.parse_args()
    workdir = None if args.db else tempfile.mkdtemp(prefix="pxp-bench-")
    path = Path(args.db or Path(workdir) / "million.db")
    if not args.reuse:
        if path.exists():
            path.unlink()
        started = time.perf_counter()
        messages = build(path, args.runs, args.sessions)
        print(f"built {messages:,} messages in {time.perf_counter() - started:.1f} s ({path.stat().st_size / 2**20:.0f} MiB)")
    rows: list[str] = []
    measure(path, rows)
    if args.docs:
        name = "million" if args.runs > 1 else "million-one-run"
        title = f"{args.runs:,} run{'s' if args.runs > 1 else ''} of {args.sessions:,} sessions"
        write_section(name, title, "\n".join(rows))
    if workdir is not None and not args.keep:
        shutil.rmtree(workdir)
    elif workdir is not None:
        print(f"kept {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
