"""Engine overhead per message: everything but the agents' own time, durable commits included.

Reports, for a run of the offline machine (no simulated latency) against the human proxy:

- on an empty blackboard and on one already holding 10,000 sessions;
- per message: wall time, time inside the agents, and the difference (the engine's overhead:
  scheduling, protocol checks, context bookkeeping, the SQLite transaction with FULL sync);

and, with instant scripted agents, the overhead over a single 10,000-session run (first and last
thousand sessions), to show it does not grow with the run; and beside them the reference of the target,
one durable commit of one small row alone (WAL, ``synchronous=FULL``) on the same disk. The runs write as
``pxp run`` does, each message on the loop's thread (``engine.interact.at_once``).

    python benchmarks/engine_overhead.py [--sessions 200] [--prefill 10000] [--long 10000] [--docs]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_section import write_section  # first: it reads the load average as the benchmark starts

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PXP_OFFLINE_LATENCY", "0")

from pxp_tui.agents.proxy import ProxyHuman
from pxp_tui.blackboard import Blackboard, now
from pxp_tui.config import RunConfig
from pxp_tui.engine import Observer, Reply, RunSpec, interact
from pxp_tui.engine.writes import at_once
from pxp_tui.protocol import Tag
from pxp_tui.runs.create import create_run, ensure_dataset
from pxp_tui.runs.seats import build_machine
from pxp_tui.tasks import get_task
from pxp_tui.tasks.base import DatasetRow


class Timed:
    """Wraps an agent and adds up the time spent inside it."""

    def __init__(self, agent):
        self.agent = agent
        self.seconds = 0.0

    async def respond(self, turn):
        started = time.perf_counter()
        try:
            return await self.agent.respond(turn)
        finally:
            self.seconds += time.perf_counter() - started


def prefill(board: Blackboard, sessions: int) -> None:
    """Add ``sessions`` finished sessions (5 messages each) of another run, in bulk."""
    board.add_dataset("prefill", "drug", [DatasetRow("p", "train", "C", "C", "e")])
    (instance,) = board.instance_ids("prefill")
    run_id = board.create_run(
        RunConfig(dataset="prefill", model="x"),
        [instance] * sessions,
    )
    stamp = now()
    tags = ["INIT", "REFUTE", "REVISE", "RATIFY", "RATIFY"]
    with board.db.atomic():
        for order in range(sessions):
            sid = (
                board.db["data"]
                .insert(
                    {
                        "run_id": run_id,
                        "instance_id": instance,
                        "ord": order,
                        "started_at": stamp,
                        "ended_at": stamp,
                        "stop_reason": "ratified",
                        "n_messages": 5,
                    }
                )
                .last_pk
            )
            board.db["messages"].insert_all(
                {
                    "session_id": sid,
                    "j": j,
                    "sender": "machine" if j % 2 else "human",
                    "receiver": "human" if j % 2 else "machine",
                    "tag": tag,
                    "prediction": "CCO.CC(=O)O",
                    "explanation": "an explanation of moderate length " * 6,
                    "created_at": stamp,
                }
                for j, tag in enumerate(tags, start=1)
            )
            board.db["context"].insert_all({"session_id": sid, "j": j, "context": "{}"} for j in range(1, 6))
    board.set_status(run_id, "done")


def offline_run(path: Path, sessions: int, prefilled: int) -> dict[str, float]:
    board = Blackboard.open(path)
    if prefilled:
        prefill(board, prefilled)
    task = get_task("drug")
    rows = task.demo_rows()
    board.add_dataset(
        "bench",
        "drug",
        [
            DatasetRow(f"{r.key}-{i}", "train", r.input, r.reference_prediction, r.reference_explanation, meta=r.meta)
            for i in range(sessions // len(rows) + 1)
            for r in rows
        ][:sessions],
    )
    config = RunConfig(task="drug", dataset="bench", context="last:5")
    ensure_dataset(board, config)
    run_id = create_run(board, config)
    run = board.run(run_id)
    instances = board.instances(run.plan)
    machine, checker = build_machine(task, config)
    machine, human = Timed(machine), Timed(ProxyHuman(task, checker))
    spec = RunSpec(run_id, n=config.n, k=config.k, context=config.context)
    # warm up litellm and RDKit outside the measurement
    asyncio.run(machine.agent.ask(_turn(instances[0])))
    started = time.perf_counter()
    asyncio.run(interact(spec, instances, machine, human, board, store=at_once))  # as `pxp run` writes
    wall = time.perf_counter() - started
    messages = board.db.execute(
        "SELECT COUNT(*) FROM messages m JOIN data d USING (session_id) WHERE d.run_id = ?", [run_id]
    ).fetchone()[0]
    board.close()
    agents = machine.seconds + human.seconds
    return {
        "messages": messages,
        "wall_ms": wall / messages * 1000,
        "agents_ms": agents / messages * 1000,
        "engine_ms": (wall - agents) / messages * 1000,
    }


def _turn(instance):
    from pxp_tui.engine import Turn

    return Turn(0, 0, instance, 0, 1, 1, 10, 3, (), [])


#: a RAD distribution (EVINCE's top-k answer), given with every message by Instant(distributions=True): each round's
#: EVINCE measures are then computed by the blackboard's trigger in the message's transaction
DISTRIBUTION = {"Atelectasis": 0.4, "Pneumonia": 0.3, "Pleural Effusion": 0.15, "Cardiomegaly": 0.1, "Pneumothorax": 0.05}


class Instant:
    """An agent with no work of its own: the machine ratifies at j=3, the human at j=2."""

    def __init__(self, distributions: bool = False):
        self.meta = {"distribution": DISTRIBUTION} if distributions else {}

    async def respond(self, turn):
        return Reply(Tag.INIT if turn.j == 1 else Tag.RATIFY, "CCO.CC(=O)O", "explanation " * 20, self.meta)


class Clock(Observer):
    """Observer timing each session, to see overhead against the run's length."""

    def __init__(self):
        self.times: list[float] = []
        self.last = time.perf_counter()

    def session_ended(self, record, kept):
        current = time.perf_counter()
        self.times.append(current - self.last)
        self.last = current


def long_run(path: Path, sessions: int, distributions: bool = False) -> tuple[float, float]:
    board = Blackboard.open(path)
    board.add_dataset("long", "drug", [DatasetRow("x", "train", "C", "C", "e")])
    (instance,) = board.instance_ids("long")
    run_id = board.create_run(
        RunConfig(dataset="long", model="instant"),
        [instance] * sessions,
    )
    instances = board.instances([instance]) * sessions
    clock = Clock()
    agents = Instant(distributions), Instant(distributions)
    asyncio.run(interact(RunSpec(run_id, context="all"), instances, *agents, board, observer=clock, store=at_once))
    board.close()
    window = max(1, sessions // 10)
    per_message = [t / 3 * 1000 for t in clock.times]  # three messages a session
    return statistics.mean(per_message[:window]), statistics.mean(per_message[-window:])


def record_cost(sessions: int, distributions: bool) -> float:
    """ms per message of Blackboard.record alone, in memory (no fsync): 8-message sessions, with or without a
    distribution on every message (then the rounds trigger and the final distribution run in the transaction)."""
    import random

    from pxp_tui.engine import Message
    from pxp_tui.protocol import Sender, StopReason

    board = Blackboard.memory()
    board.add_dataset("t", "rad", [DatasetRow("a", "train", "", "", "")])
    (instance,) = board.instance_ids("t")
    run_id = board.create_run(RunConfig(task="rad", dataset="t", model="m"), [instance])
    rng, spent, count = random.Random(1), 0.0, 0
    for order in range(sessions):
        session = board.start_session(run_id, instance, order)
        for j in range(1, 9):
            weights = {label: rng.random() for label in DISTRIBUTION}
            meta = {"distribution": {k: v / sum(weights.values()) for k, v in weights.items()}} if distributions else {}
            sender, tag = (Sender.MACHINE, Tag.INIT if j == 1 else Tag.REFUTE) if j % 2 else (Sender.HUMAN, Tag.REFUTE)
            started = time.perf_counter()
            board.record(Message(session, j, sender, tag, "Pneumonia", "e", meta), {}, StopReason.BOUND if j == 8 else None)
            spent += time.perf_counter() - started
            count += 1
    board.close()
    return spent / count * 1000


def commit_floor(path: Path, commits: int = 200) -> float:
    """ms of one durable commit of one small row (WAL, synchronous=FULL), the median of ``commits``: the target's
    reference, measured on the same disk in the same sitting."""
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    times = []
    for number in range(commits):
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (body) VALUES (?)", [f"message {number}"])
        conn.execute("COMMIT")
        times.append(time.perf_counter() - started)
    conn.close()
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--prefill", type=int, default=10_000)
    parser.add_argument("--long", type=int, default=10_000, help="sessions of the instant-agent run")
    parser.add_argument("--docs", action="store_true", help="also write the figures into docs/performance.md")
    args = parser.parse_args()
    rows = [
        "| run | messages | wall per message | in the agents | engine overhead | one durable commit alone |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"offline machine vs proxy, {args.sessions} sessions, WAL + synchronous=FULL, one transaction per message")
        print(f"{'blackboard':<28}{'messages':>9}{'wall/msg':>11}{'agents/msg':>12}{'engine/msg':>12}{'commit alone':>14}")
        for label, prefilled in (("empty", 0), (f"holding {args.prefill:,} sessions", args.prefill)):
            r = offline_run(Path(tmp) / f"b{prefilled}.db", args.sessions, prefilled)
            floor = commit_floor(Path(tmp) / f"floor{prefilled}.db")
            print(
                f"{label:<28}{r['messages']:>9}{r['wall_ms']:>9.2f}ms{r['agents_ms']:>10.2f}ms{r['engine_ms']:>10.3f}ms"
                f"{floor:>12.3f}ms"
            )
            rows.append(
                f"| {args.sessions} sessions, the blackboard {label} | {r['messages']:,} | {r['wall_ms']:.2f} ms | "
                f"{r['agents_ms']:.2f} ms | **{r['engine_ms']:.2f} ms** | {floor:.2f} ms |"
            )
        for distributions in (False, True):
            first, last = long_run(Path(tmp) / f"long{distributions}.db", args.long, distributions)
            floor = commit_floor(Path(tmp) / f"floor-long{distributions}.db")
            lines.append(
                f"instant agents, one run of {args.long:,} sessions (context: all)"
                f"{', a distribution with every message (rounds by trigger)' if distributions else ''}: "
                f"first tenth {first:.3f} ms/msg, last tenth {last:.3f} ms/msg, **{(first + last) / 2 / floor:.2f} times** "
                f"one durable commit alone measured after it ({floor:.3f} ms; target: at most 1.25)"
            )
            print(lines[-1])
        plain, measured = record_cost(500, False), record_cost(500, True)
        lines.append(
            f"Blackboard.record in memory (no fsync), 500 sessions of 8 messages: {plain:.3f} ms/msg; with a "
            f"distribution on every message (rounds trigger, final distribution): {measured:.3f} ms/msg"
        )
        print(lines[-1])
    if args.docs:
        body = "\n".join(rows) + "\n\n" + "\n".join(f"- {line[0].upper()}{line[1:]}." for line in lines)
        write_section("engine_overhead", "Overhead per message, beside one durable commit", body)


if __name__ == "__main__":
    main()
