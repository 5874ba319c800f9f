"""Turn latency: from the expert's send to the message committed, the machine's reply on screen, the next instance ready.

    python benchmarks/turn_latency.py [--sessions 10] [--task drug rad] [--size 80x24 160x48]
        [--mode pilot tmux] [--latency SECONDS] [--answer ratify|refute] [--think 0.5]
        [--profile DIR] [--first-paint] [--json FILE] [--docs]

Drives the real app through ``--sessions`` sessions of a live run with the offline machine
(``PXP_OFFLINE_LATENCY`` = ``--latency``, default 0: the machine's own work only) on the task's demo
instances, at each size, in each mode:

- ``pilot``: ``PXPApp(...).run_test(size=...)`` in this process (headless: Textual lays out and
  renders, but writes nothing to a terminal; pictures as half-cell blocks unless ``PXP_IMAGES`` says
  otherwise);
- ``tmux``: the real ``pxp`` in a private tmux server (half-cell pictures, as over ssh), keys sent and
  the screen read through a tmux control-mode client every few milliseconds.

At each "Your turn" the expert waits ``--think`` seconds, presses ``1`` (``--answer refute``: ``2``,
then ``1`` at message 4), waits for the choice to show, and presses ctrl+s; the clock starts at
ctrl+s. Per step it reports, from the send:

- (a) the message committed (the engine's ``Blackboard.record`` returned);
- (b) the machine's reply on screen: its message handled and the first frame rendered with the
  machine pane's text mounted (in tmux, also when the text is visible in the pane). After a RATIFY
  that ends the session, the engine opens the next session at once, so the reply may never be on
  screen on its own: "superseded" counts those;
- (c) the next instance ready: the expert's next turn open, the tag list focused, every picture of
  the instance drawn and rendered (in tmux: "Your turn" and the new session in the header, no
  picture still "drawing…").

A session's outcome stays on screen until the expert moves on. After a session's last answer, (b) is
the outcome on screen (its first frame painted); this expert reads it for ``--think`` seconds too and
presses enter: (c) then counts from that key (the wait the expert meets is from their key).

It then breaks each step down (commit, the machine's reply, litellm's round trips against the
model's own ``answer()``, RDKit and picture threads, textual-image's encoding, Textual's layout and
render, the terminal write, the screen's handlers, the chart) and compares the latency the machine
pane shows with the model's own time. ``--profile DIR`` runs pyinstrument (``pip install -e
'.[bench]'``) over the sessions (the UI loop's thread) and prints its top entries. ``--first-paint``
adds ``first_paint.py``'s measurement and what is imported before the first frame.

The load average is printed before and after each measurement, and the machine's speed (``ref ms``:
a fixed pure-Python loop, :func:`reference_ms`; smaller is faster): on a shared machine, say them
with the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from docs_section import write_section  # noqa: E402 - first: it reads the load average as the benchmark starts

from pxp_harness.waiting import async_poll  # noqa: E402

now = time.perf_counter
TAGS = {"1": "RATIFY", "2": "REFUTE"}
ANSWERS = {"ratify": ["1"], "refute": ["2", "1"]}
REPLIES = {"ratify": [True], "refute": [True, False]}  # does the machine reply (or the session end)?

#: (span kind, label) of the breakdown, in the order printed
PARTS: tuple[tuple[str, str], ...] = (
    ("commit", "commit: SQLite transactions (UI loop)"),
    ("machine respond", "machine's replies, wall (engine awaits)"),
    ("litellm call", "  litellm round trips, wall"),
    ("model answer", "    the model's own answer() (thread)"),
    ("model answer cpu", "      its CPU time"),
    ("checker answer", "    the checker's own answer() (thread)"),
    ("checker answer cpu", "      its CPU time"),
    ("draw picture", "pictures: task drawing, RDKit/image (thread)"),
    ("draw picture cpu", "  its CPU time"),
    ("picture thread", "pictures: whole thread, draw+decode+widget"),
    ("picture thread cpu", "  its CPU time"),
    ("image prepare", "textual-image: pixels prepared (UI loop)"),
    ("image encode", "textual-image: encoded to cells (UI loop)"),
    ("layout", "Textual layout: reflow (UI loop)"),
    ("render", "Textual render: render_update (UI loop)"),
    ("terminal write", "terminal write: App._display (UI loop)"),
    ("screen handlers", "session screen handlers (UI loop)"),
    ("chart", "metrics chart: update + render (UI loop)"),
)


@dataclass
class Step:
    """One send and what followed, in ms from the send (None: never happened)."""

    order: int
    session: int
    j: int
    tag: str
    handled: float | None = None  # the send reached the engine
    commit: float | None = None  # (a)
    reply: float | None = None  # (b), in-process frame
    reply_visible: bool | None = None
    outcome: float | None = None  # (b) after a session's last answer: its outcome painted
    # from the send, or from the enter pressed at an outcome:
    turn: float | None = None  # the next turn open, the tag list focused, pictures drawn or not
    ready: float | None = None  # (c), in-process frame
    screen_reply: float | None = None  # (b) as tmux showed it
    screen_superseded: bool | None = None
    screen_outcome: float | None = None  # the outcome as tmux showed it
    screen_turn: float | None = None  # "Your turn" in tmux, pictures drawn or not
    screen_ready: float | None = None  # (c) as tmux showed it
    cpu_ms: float | None = None  # the app process's CPU time (all threads) from the send to (c)
    own_ms: float = 0.0  # the machine model's own answer() time in (c)
    reply_own_ms: float = 0.0  # the model's own time of the reply (b)
    parts: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # spans of each kind in the step
    calls: int = 0


@dataclass
class Result:
    task: str
    size: str
    mode: str
    load_before: float
    load_after: float
    steps: list[Step]
    reference: tuple[float, float]  # reference_ms() before and after
    overhead_per_call: list[float]  # litellm round trip minus answer() minus simulated latency, ms
    loop_during_call: list[float]  # UI-loop work (layout, render, write, handlers) inside each litellm call, ms
    call_phases: list[tuple[float, float]]  # per call: (before the model's answer starts, after it ends), ms
    shown: list[tuple[float, float, float]]  # (latency the machine pane shows, the model's answer() wall, its CPU), ms
    profile: str = ""


# -- the run ---------------------------------------------------------------------------------------------
def make_run(db: Path, task: str, instances: int, context: str) -> int:
    """A live run on ``instances`` copies of the task's demo training instances (in order, repeated)."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.common.kinds import HumanKind
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.create import create_run
    from pxp_tui.tasks import get_task

    demo = get_task(task).demo_rows()
    rows = [r for r in demo if r.split == "train"] or demo
    copies = [
        dataclasses.replace(r, key=f"{r.key}#{i}" if i else r.key, split="train")
        for i in range(instances // len(rows) + 1)
        for r in rows
    ][:instances]
    with Blackboard.open(db) as board:
        board.add_dataset("bench", task, copies, source="benchmarks/turn_latency.py")
        return create_run(
            board, RunConfig(task=task, dataset="bench", human_kind=HumanKind.LIVE, expert="bench", context=context)
        )


def load() -> float:
    return os.getloadavg()[0]


def reference_ms(repeats: int = 7) -> float:
    """The machine's speed now: the median time of a fixed pure-Python loop (200,000 additions), in ms.

    This machine's speed changes by up to a half from one minute to the next (other tenants of its host):
    the figure beside each result says how fast it was then (smaller is faster), so that runs can be compared."""
    times = []
    for _ in range(repeats):
        start = now()
        total = 0
        for i in range(200_000):
            total += i
        times.append((now() - start) * 1000)
    return statistics.median(times)


# -- Pilot mode --------------------------------------------------------------------------------------------
def press(app: Any, key: str) -> None:
    """A key as the terminal driver delivers it (no Pilot waits, which would force frames)."""
    from textual import events

    from pxp_harness.internals import send_to_driver

    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    send_to_driver(app, event)


async def pilot_steps(app: Any, probe: Any, sessions: int, answers: list[str], think: float, profiler: Any) -> list[tuple]:
    from pxp_tui.app.session.widgets.tag_choice import TagChoice
    from pxp_tui.protocol import Tag

    raw = []
    for order in range(sessions):
        session = await async_poll(lambda o=order: probe.session_of(o), f"session {order + 1}", 60.0, 0.005)
        j = 2
        for position, key in enumerate(answers):
            await probe.wait("ready", session, j)
            if profiler is not None and not profiler.is_running:
                profiler.start()
            await asyncio.sleep(think)
            choice = app.screen.query_one(TagChoice)
            press(app, key)
            frames = probe.frames
            await async_poll(lambda c=choice, k=key: c.selected is Tag(TAGS[k]), f"{TAGS[key]} chosen", 60.0, 0.005)
            # and shown: a frame has painted the tag list since (as tmux mode waits for it on the screen)
            await async_poll(
                lambda c=choice, f=frames: probe.frames > f and id(c) in probe.painted, f"{TAGS[key]} shown", 60.0, 0.005
            )
            t0 = now()
            press(app, "ctrl+s")
            t_key = None
            if position == len(answers) - 1:
                # the session's outcome stays until the expert moves on: this expert reads it (--think) and presses enter
                await probe.wait("outcome", session, 0)
                await asyncio.sleep(think)
                t_key = now()
                press(app, "enter")
                nxt = await async_poll(lambda o=order: probe.session_of(o + 1), f"session {order + 2}", 60.0, 0.005)
                next_j = 2
            else:
                nxt, next_j = session, j + 2
            await probe.wait("ready", nxt, next_j)
            raw.append((order, session, j, TAGS[key], t0, nxt, next_j, t_key))
            j += 2
    if profiler is not None and profiler.is_running:
        profiler.stop()
    return raw


def run_pilot(probe: Any, db: Path, run_id: int, size: tuple[int, int], args: argparse.Namespace, profiler: Any) -> list[tuple]:
    from pxp_tui.app.shell.pxp_app import PXPApp

    async def main() -> list[tuple]:
        app = PXPApp(db, run_id=run_id)
        async with app.run_test(size=size):
            raw = await pilot_steps(app, probe, args.sessions, ANSWERS[args.answer], args.think, profiler)
            app.exit()
        return raw

    return asyncio.run(main())


# -- analysis ----------------------------------------------------------------------------------------------
def ms(t: float | None, t0: float) -> float | None:
    return None if t is None else (t - t0) * 1000


#: spans on the UI loop that do not nest in one another
LOOP_KINDS = ("commit", "layout", "render", "terminal write", "screen handlers")


def analyse(probe: Any, raw: list[tuple], latency: float, screen: list[Any] | None = None) -> tuple:
    """Each step's times and breakdown; litellm's overheads; the latencies shown against the model's own."""
    spans = sorted(probe.spans, key=lambda s: s[1])
    answers = [s for s in spans if s[0] == "model answer"]
    cpu = [s for s in spans if s[0] == "model answer cpu"]

    def answered(start: float, end: float, model: bool = True, within: list | None = None) -> float:
        return sum(
            e - s
            for k, s, e, _, d in (answers if within is None else within)
            if s >= start and e <= end and (d != "checker") == model
        )

    loop = [s for s in spans if s[0] in LOOP_KINDS]

    def loop_work(start: float, end: float) -> float:
        return sum(max(0.0, min(e, end) - max(s, start)) for _, s, e, _, _ in loop if s < end and e > start)

    steps, overheads, shown, blocked, phases = [], [], [], [], []
    for index, (order, session, j, tag, t0, nxt, next_j, t_key) in enumerate(raw):
        start = t0 if t_key is None else t_key  # (c) counts from the last key: the send, or the enter that leaves an outcome
        ready_at = probe.stamps.get(("ready", nxt, next_j))
        cpu_sent, cpu_ready = probe.cpu.get(("send", session, j)), probe.cpu.get(("ready", nxt, next_j))
        step = Step(
            order,
            session,
            j,
            tag,
            handled=ms(probe.stamps.get(("send", session, j)), t0),
            commit=ms(probe.stamps.get(("commit", session, j)), t0),
            reply=ms(probe.stamps.get(("reply", session, j + 1)), t0),
            reply_visible=probe.reply_visible.get((session, j + 1)),
            outcome=ms(probe.stamps.get(("outcome", session, 0)), t0) if t_key is not None else None,
            turn=ms(probe.stamps.get(("turn", nxt, next_j)), start),
            ready=ms(ready_at, start),
            cpu_ms=None if cpu_sent is None or cpu_ready is None else (cpu_ready - cpu_sent) * 1000,
        )
        if screen is not None:
            seen = screen[index]
            step.screen_reply = ms(seen.reply, t0)
            step.screen_superseded = seen.reply_superseded if seen.reply is not None else None
            step.screen_outcome = ms(seen.outcome, t0)
            step.screen_ready = ms(seen.ready, seen.key or t0)
            step.screen_turn = ms(seen.turn, seen.key or t0)
            end = max(t for t in (ready_at, seen.ready) if t is not None) if (ready_at or seen.ready) else t0
        else:
            end = ready_at or t0
        parts: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for kind, start, stop, _, detail in spans:
            if t0 <= start <= end:
                if kind.startswith("model answer") and detail == "checker":
                    kind = kind.replace("model", "checker")
                if kind == "screen handlers" and detail:
                    parts[f"handler {detail}"] += (stop - start) * 1000
                if kind == "widget render":
                    parts[f"widget {detail}"] += (stop - start) * 1000
                    continue
                if kind == "loop":
                    parts[f"loop {_owner(str(detail))}"] += (stop - start) * 1000
                parts[kind] += (stop - start) * 1000
                counts[kind] += 1
                if kind == "litellm call":
                    step.calls += 1
                    overheads.append(((stop - start) - answered(start, stop) - answered(start, stop, False) - latency) * 1000)
                    blocked.append(loop_work(start, stop) * 1000)
                    inner = [a for a in answers if a[1] >= start and a[2] <= stop]
                    if inner:
                        phases.append(((inner[0][1] - start - latency) * 1000, (stop - inner[-1][2]) * 1000))
                if kind == "machine respond" and detail is not None:
                    own = answered(start, stop, within=cpu) * 1000
                    key = tuple(detail)
                    if key in probe.shown_latency:
                        shown.append((probe.shown_latency[key], answered(start, stop) * 1000, own))
                    if key == (session, j + 1):
                        step.reply_own_ms = own
        step.parts = dict(parts)
        step.counts = dict(counts)
        step.own_ms = parts.get("model answer cpu", 0.0)  # its work; its wall time includes waiting for the GIL
        steps.append(step)
    return steps, overheads, shown, blocked, phases


#: (a piece of an event-loop callback's name, what it is): the first that matches names the owner
OWNERS: tuple[tuple[str, str], ...] = (
    ("[screen_update]", "frames (update timer: layout, render, write)"),
    ("FooterKey", "footer keys, remounted at binding changes"),
    ("Footer", "footer keys, remounted at binding changes"),
    ("Markdown", "Markdown (the machine's explanation)"),
    ("SessionScreen", "session screen messages (handlers, restyle)"),
    ("Worker._run", "workers (the engine)"),
    ("Picture", "pictures' messages (mount the drawn image)"),
)


def _owner(name: str) -> str:
    for needle, owner in OWNERS:
        if needle in name:
            return owner
    return "other widgets' messages, timers"


def stats(values: list[float | None]) -> tuple[str, str, int]:
    got = [v for v in values if v is not None]
    if not got:
        return "-", "-", 0
    return f"{statistics.median(got):.1f}", f"{min(got):.1f}-{max(got):.1f}", len(got)


def row(label: str, values: list[float | None], width: int = 52) -> str:
    median, spread, n = stats(values)
    return f"{label:<{width}}{median:>9}{spread:>17}{n:>5}"


def report(result: Result, args: argparse.Namespace) -> str:
    steps = result.steps
    lines = [
        f"{result.task.upper()} {result.size}, {result.mode}: {len(steps)} steps "
        f"({', then '.join(f'{TAGS[k]} at message {2 * (i + 1)}' for i, k in enumerate(ANSWERS[args.answer]))} in each "
        f"session), offline latency {args.latency:g} s, "
        f"think {args.think:g} s; load average {result.load_before:.2f} before, {result.load_after:.2f} after; "
        f"speed reference {result.reference[0]:.1f} ms before, {result.reference[1]:.1f} ms after (reference_ms)",
        f"{'ms from the send (ctrl+s)':<52}{'median':>9}{'min-max':>17}{'n':>5}",
        row("send handled (the answer reaches the engine)", [s.handled for s in steps]),
        row("(a) message committed", [s.commit for s in steps]),
        row("(b) machine's reply on screen (frame rendered)", [s.reply for s in steps]),
        row("(b) the session's outcome on screen (frame rendered)", [s.outcome for s in steps]),
    ]
    tmux = result.mode.startswith("tmux")
    if tmux:
        lines.append(row("(b) ... visible in tmux", [s.screen_reply if s.outcome is None else s.screen_outcome for s in steps]))
    if any(s.outcome is not None for s in steps):
        lines.append("  after an outcome, (c) counts from the enter that leaves it (the expert has read it):")
    lines.append(row("    the next turn open, pictures drawn or not", [s.turn for s in steps]))
    if tmux:
        lines.append(row('    ... "Your turn" visible in tmux', [s.screen_turn for s in steps]))
    lines.append(row("(c) next turn ready, pictures drawn (frame rendered)", [s.ready for s in steps]))
    if tmux:
        lines.append(row("(c) ... visible in tmux", [s.screen_ready for s in steps]))
    c = [s.screen_ready if tmux else s.ready for s in steps]
    b = [_b(s, tmux) for s in steps]
    lines += [
        row("    the app's CPU time in (c), all threads", [s.cpu_ms for s in steps]),
        row("    the model's own time in (c) (its CPU time)", [s.own_ms for s in steps]),
        row(
            "(c) minus the model's own time",
            [None if v is None else v - s.own_ms for v, s in zip(c, steps, strict=True)],
        ),
        row(
            "(b) minus the reply's own time (target <= 100)",
            [None if v is None else v - s.reply_own_ms for v, s in zip(b, steps, strict=True)],
        ),
    ]
    visible = [s.reply_visible for s in steps if s.reply_visible is not None]
    superseded = [s.screen_superseded for s in steps if s.screen_superseded is not None]
    note = f"    reply still on screen in its first frame: {sum(visible)} of {len(visible)}"
    if superseded:
        note += f"; in tmux, superseded by the next session before it showed: {sum(superseded)} of {len(superseded)}"
    lines.append(note)
    lines.append("where the time goes in (c), per step (spans that start in it; threads overlap the UI loop)")
    for kind, label in PARTS:
        values = [s.parts.get(kind, 0.0) for s in steps]
        if any(values):
            lines.append(row(f"  {label}", values))
        if kind == "screen handlers":
            names = sorted({k for s in steps for k in s.parts if k.startswith("handler ")})
            for name in names:
                lines.append(row(f"    {name[len('handler ') :]}", [s.parts.get(name, 0.0) for s in steps]))
        if kind == "render":  # the widgets whose lines cost most
            names = {k for s in steps for k in s.parts if k.startswith("widget ")}
            total = {name: sum(s.parts.get(name, 0.0) for s in steps) for name in names}
            for name in sorted(names, key=lambda n: -total[n])[:8]:
                lines.append(row(f"    {name[len('widget ') :]}", [s.parts.get(name, 0.0) for s in steps]))
    owners = sorted(
        {k for s in steps for k in s.parts if k.startswith("loop ")}, key=lambda k: -sum(s.parts.get(k, 0.0) for s in steps)
    )
    if owners:
        lines.append(row("  UI loop busy (callbacks over 0.5 ms), by owner", [s.parts.get("loop", 0.0) for s in steps]))
        for name in owners:
            lines.append(row(f"    {name[len('loop ') :][:46]}", [s.parts.get(name, 0.0) for s in steps]))

    def per_step(kind: str) -> str:
        return f"{statistics.median([s.counts.get(kind, 0) for s in steps]):g}"

    if steps:
        lines.append(
            f"  per step (medians): {per_step('litellm call')} litellm calls, "
            f"{per_step('layout')} layouts, {per_step('render')} frames rendered, "
            f"{per_step('image encode')} image encodings, {per_step('draw picture')} pictures drawn"
        )
    if result.overhead_per_call:
        lines.append(row("litellm per-call overhead (round trip - answer())", result.overhead_per_call))
        lines.append(row("  before the model's answer() starts", [p for p, _ in result.call_phases]))
        lines.append(row("  after it ends, until litellm returns", [a for _, a in result.call_phases]))
        lines.append(row("  UI loop busy during the call (layout, render...)", result.loop_during_call))
    if result.shown:
        lines.append(row("machine pane's latency, per machine message", [s for s, _, _ in result.shown]))
        lines.append(row("  the model's own answer() of those messages, wall", [w for _, w, _ in result.shown]))
        lines.append(row("  ... its CPU time (the model's own work)", [c for _, _, c in result.shown]))
    if result.profile:
        lines.append(result.profile)
    return "\n".join(line for line in lines if line)


def _b(step: Step, tmux: bool) -> float | None:
    """(b): the machine's reply on screen or, after a session's last answer, its outcome."""
    if step.outcome is not None or step.screen_outcome is not None:
        return step.screen_outcome if tmux else step.outcome
    return step.screen_reply if tmux else step.reply


def summary(results: list[Result]) -> str:
    head = (
        f"{'task':<6}{'size':<8}{'mode':<18}{'steps':>6}{'(a) commit':>12}{'(b) reply':>11}{'(c) ready':>11}"
        f"{'own':>8}{'(c)-own':>9}{'app cpu':>9}{'shown lat':>11}{'load':>11}{'ref ms':>12}"
    )
    lines = [
        "summary: medians in ms from the send (tmux: as seen on screen); (b) is the outcome and (c) counts from enter"
        " where a session ended; ref ms: the machine's speed before and after (reference_ms: smaller is faster)",
        head,
    ]
    for r in results:
        tmux = r.mode.startswith("tmux")
        b = [_b(s, tmux) for s in r.steps]
        c = [s.screen_ready if tmux else s.ready for s in r.steps]
        minus = [None if v is None else v - s.own_ms for v, s in zip(c, r.steps, strict=True)]

        def med(values: list[float | None]) -> str:
            return stats(values)[0]

        lines.append(
            f"{r.task:<6}{r.size:<8}{r.mode:<18}{len(r.steps):>6}{med([s.commit for s in r.steps]):>12}{med(b):>11}"
            f"{med(c):>11}{med([s.own_ms for s in r.steps]):>8}{med(minus):>9}{med([s.cpu_ms for s in r.steps]):>9}"
            f"{med([s for s, _, _ in r.shown]):>11}"
            f"{r.load_before:>5.2f}-{r.load_after:<5.2f}{r.reference[0]:>6.1f}-{r.reference[1]:<5.1f}"
        )
    return "\n".join(lines)


def docs_table(results: list[Result]) -> str:
    """The figures docs/performance.md shows: per configuration, medians in ms of (a), of (b) and (c) with the
    model's own time taken off, and the machine's speed and load beside them."""
    lines = [
        "| task | size | mode | steps | (a) committed | (b) on screen, minus the reply's own time "
        "| (c) next turn ready, minus the model's own time | ref ms before-after | load before-after |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        tmux = r.mode.startswith("tmux")
        b = [_b(s, tmux) for s in r.steps]
        c = [s.screen_ready if tmux else s.ready for s in r.steps]
        b_minus = [None if v is None else v - s.reply_own_ms for v, s in zip(b, r.steps, strict=True)]
        c_minus = [None if v is None else v - s.own_ms for v, s in zip(c, r.steps, strict=True)]
        lines.append(
            f"| {r.task.upper()} | {r.size} | {r.mode} | {len(r.steps)} | {stats([s.commit for s in r.steps])[0]} "
            f"| {stats(b_minus)[0]} | {stats(c_minus)[0]} | {r.reference[0]:.1f}-{r.reference[1]:.1f} "
            f"| {r.load_before:.2f}-{r.load_after:.2f} |"
        )
    return "\n".join(lines)


# -- litellm's per-call overhead on a quiet loop ------------------------------------------------------------
def litellm_baseline(task: str, calls: int) -> str:
    """The offline model through ``LLMClient.complete`` (litellm) against its ``answer()`` alone, no app."""
    from pxp_tui.agents import offline
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.config import RunConfig
    from pxp_tui.engine import Turn
    from pxp_tui.runs.seats import build_machine
    from pxp_tui.tasks import get_task

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "b.db"
        run_id = make_run(db, task, 1, "none")
        with Blackboard.open(db) as board:
            instance = board.instances(list(board.run(run_id).plan))[0]
    t = get_task(task)
    machine, _ = build_machine(t, RunConfig(task=task))
    messages = machine.prompt(Turn(0, 0, instance, 0, 1, 1, 10, 3, (), []))

    async def trips() -> list[float]:
        out = []
        for _ in range(calls + 1):
            started = now()
            await machine.client.complete(messages, **machine.params)
            out.append((now() - started) * 1000)
        return out[1:]  # the first call warms litellm up

    latency = offline.latency()
    round_trips = asyncio.run(trips())
    own = []
    for _ in range(calls):
        started = now()
        offline.answer(task, messages)
        own.append((now() - started) * 1000)
    rt, a = statistics.median(round_trips), statistics.median(own)
    return (
        f"litellm on a quiet loop ({task}, {calls} calls, no app): round trip {rt:.2f} ms "
        f"({min(round_trips):.2f}-{max(round_trips):.2f}), answer() alone {a:.2f} ms, "
        f"so litellm + to_thread add {rt - a - latency * 1000:.2f} ms a call"
    )


# -- the profile --------------------------------------------------------------------------------------------
IDLE = ("epoll.poll", "poll.poll", "select.select", "kqueue.control")

#: (function, a piece of its file's path, activity): a sample belongs to the innermost activity on its stack
ACTIVITIES: tuple[tuple[str | None, str, str], ...] = (
    ("recompose", "textual/widget.py", "Textual: recompose"),
    ("mount", "textual/widget.py", "Textual: mount, remove widgets"),
    ("mount_all", "textual/widget.py", "Textual: mount, remove widgets"),
    ("remove_children", "textual/widget.py", "Textual: mount, remove widgets"),
    ("update_styles", "textual/app.py", "Textual: CSS restyle"),
    ("apply", "textual/css/stylesheet.py", "Textual: CSS restyle"),
    ("_update_styles", "textual/", "Textual: CSS restyle"),
    ("reflow", "textual/_compositor.py", "Textual: layout (reflow)"),
    ("reflow_visible", "textual/_compositor.py", "Textual: layout (reflow)"),
    ("render_update", "textual/_compositor.py", "Textual: render (widgets' lines)"),
    ("render_full_update", "textual/_compositor.py", "Textual: render (widgets' lines)"),
    ("_display", "textual/app.py", "Textual: terminal write"),
    (None, "textual_image", "textual-image (encode)"),
    (None, "plotext", "chart (plotext)"),
    (None, "_markdown.py", "Textual: Markdown"),
    (None, "pxp_tui/app", "app: screen handlers, widgets"),
    (None, "pxp_tui/engine", "engine, agents, tasks"),
    (None, "pxp_tui/agents", "engine, agents, tasks"),
    (None, "pxp_tui/tasks", "engine, agents, tasks"),
    (None, "pxp_tui/blackboard", "blackboard (SQLite)"),
    (None, "sqlite", "blackboard (SQLite)"),
    (None, "litellm", "litellm"),
)


def _activity(function: str, path: str, current: str) -> str:
    if function in IDLE:
        return "idle (waiting for events)"
    for name, needle, activity in ACTIVITIES:
        if needle in path and (name is None or name == function):
            if activity.startswith("app") and current.startswith(("Textual: render", "Textual: layout", "Textual: CSS")):
                return current  # a widget's method called by Textual's render stays render
            return activity
    return current


def profile_summary(session: Any, top: int) -> str:
    """The top entries of a pyinstrument session: by area, by function (self), our functions (inclusive).

    Samples are wall-clock time of the UI loop's thread: on a loaded machine they include the time
    the process waited for a core.
    """
    selfs: dict[tuple, float] = defaultdict(float)
    inclusive: dict[tuple, float] = defaultdict(float)
    areas: dict[str, float] = defaultdict(float)
    widgets: dict[str, float] = defaultdict(float)  # render_lines by widget class

    def walk(frame: Any, stack: frozenset, current: str) -> None:
        children = [c for c in frame.children if not c.identifier.startswith("[self]")]
        own = max(0.0, frame.time - sum(c.time for c in children))  # "[self]" children are the frame's own time
        path = frame.file_path_short or frame.file_path or "?"
        key = (frame.function, path, frame.line_no)
        area = _activity(frame.function, frame.file_path or "", current)
        selfs[key] += own
        areas[area] += own
        if key not in stack:
            inclusive[key] += frame.time
        if frame.function == "render_lines" and frame.class_name:
            widget = ("render_lines", frame.class_name)
            if widget not in stack:
                widgets[frame.class_name] += frame.time
            key = widget  # nested render_lines of the same class count once
            stack = stack | {widget}
        for child in children:
            walk(child, stack | {key}, area)

    root = session.root_frame()
    if root is None:
        return "profile: no samples"
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    walk(root, frozenset(), "Textual: messages, events, other")
    total = sum(areas.values())
    idle = areas.get("idle (waiting for events)", 0.0)
    busy = max(total - idle, 1e-9)
    lines = [
        f"profile (pyinstrument, the UI loop's thread, wall clock): {total:.2f} s sampled, {idle:.2f} s idle, {busy:.2f} s busy",
        "  busy time by activity (the innermost one on the stack):",
    ]
    for area, t in sorted(areas.items(), key=lambda kv: -kv[1]):
        if area != "idle (waiting for events)" and t / busy >= 0.005:
            lines.append(f"    {area:<36}{t:>8.3f} s {100 * t / busy:>5.1f}%")
    lines.append("  Textual render by widget class (render_lines, inclusive):")
    for name, t in sorted(widgets.items(), key=lambda kv: -kv[1])[:8]:
        lines.append(f"    {name:<36}{t:>8.3f} s {100 * t / busy:>5.1f}%")
    lines.append(f"  top {top} functions by self time:")
    ranked = [(k, t) for k, t in selfs.items() if k[0] not in IDLE]
    for (function, path, line), t in sorted(ranked, key=lambda kv: -kv[1])[:top]:
        lines.append(f"    {t:>7.3f} s {100 * t / busy:>5.1f}%  {function}  {path}:{line}")
    lines.append(f"  top {top} of the app's functions and Textual's frame steps by inclusive time:")
    steps = (
        "reflow",
        "render_update",
        "_display",
        "_refresh_layout",
        "_compositor_refresh",
        "_on_timer_update",
        "update_styles",
        "recompose",
        "mount_all",
        "remove_children",
    )
    ours = [(k, t) for k, t in inclusive.items() if "pxp_tui" in k[1] or (k[0] in steps and "textual" in k[1])]
    for (function, path, line), t in sorted(ours, key=lambda kv: -kv[1])[:top]:
        lines.append(f"    {t:>7.3f} s {100 * t / busy:>5.1f}%  {function}  {path}:{line}")
    return "\n".join(lines)


def new_profiler() -> Any:
    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("--profile needs pyinstrument: pip install -e '.[bench]'") from None
    return Profiler(async_mode="disabled")


# -- one configuration ------------------------------------------------------------------------------------
def measure(task: str, size: str, mode: str, args: argparse.Namespace, probe: Any, tmp: Path) -> list[Result]:
    """One configuration: its run measured and analysed; one result per kind of step (tag and message)."""
    width, height = (int(v) for v in size.split("x"))
    name = f"{task}-{size}-{mode}"
    db = tmp / f"{name}.db"
    instances = args.sessions + 1  # the last session is the one the last step opens
    run_id = make_run(db, task, instances, args.context)
    profile_path = Path(args.profile) / f"{name}.pyisession" if args.profile else None
    before, reference_before = load(), reference_ms()
    screen = None
    text = ""
    if mode == "pilot":
        probe.reset()
        profiler = new_profiler() if args.profile else None
        raw = run_pilot(probe, db, run_id, (width, height), args, profiler)
        used = probe
        if profiler is not None and profiler.last_session is not None:
            profiler.last_session.save(str(profile_path))
            text = profile_summary(profiler.last_session, args.top)
    else:
        import latency_tmux

        if args.profile:
            new_profiler()  # fails early if pyinstrument is missing
        events = tmp / f"{name}.json"
        env = {"PXP_OFFLINE_LATENCY": str(args.latency)}
        if args.images:
            env["PXP_IMAGES"] = args.images
        screen = latency_tmux.drive(
            db,
            run_id,
            (width, height),
            args.sessions,
            instances,
            ANSWERS[args.answer],
            REPLIES[args.answer],
            env=env,
            think=args.think,
            events=events,
            profile=profile_path,
            bare=args.bare,
        )
        from latency_probe import Probe

        used = Probe.load(events)
        raw = _raw_from_screen(used, screen)
        if profile_path is not None and profile_path.exists():
            from pyinstrument.session import Session

            text = profile_summary(Session.load(str(profile_path)), args.top)
    after, reference_after = load(), reference_ms()
    steps, overheads, shown, blocked, phases = analyse(used, raw, args.latency, screen)
    kinds = sorted({(s.j, s.tag) for s in steps})
    results = []
    for index, (j, tag) in enumerate(kinds):
        label = mode if len(kinds) == 1 else f"{mode} {tag}@{j}"
        chosen = [s for s in steps if (s.j, s.tag) == (j, tag)]
        extra = (overheads, blocked, phases, shown, text) if index == 0 else ([], [], [], [], "")
        results.append(Result(task, size, label, before, after, chosen, (reference_before, reference_after), *extra))
    return results


def _raw_from_screen(probe: Any, screen: list[Any]) -> list[tuple]:
    raw = []
    for step in screen:
        session = probe.session_of(step.order)
        last = step.tag == "RATIFY"
        nxt = probe.session_of(step.order + 1) if last else session
        raw.append((step.order, session, step.j, step.tag, step.t0, nxt, 2 if last else step.j + 2, step.key))
    return raw


def first_paint_section(runs: int) -> str:
    import shutil

    import first_paint

    pxp = shutil.which("pxp") or str(Path(sys.executable).with_name("pxp"))
    with tempfile.TemporaryDirectory() as tmp:
        first_paint.first_paint([pxp], b"New run", tmp)  # warm the file cache
        times = [first_paint.first_paint([pxp], b"New run", tmp) for _ in range(runs)]
        imports = first_paint.imports_before_first_frame(tmp)
    lines = [
        f"first paint of `pxp` in a pseudo-terminal, {runs} runs: median {statistics.median(times):.3f} s "
        f"({min(times):.3f}-{max(times):.3f})",
        imports,
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="sessions answered per configuration (default 10)")
    parser.add_argument("--task", nargs="+", choices=("drug", "rad"), default=["drug", "rad"])
    parser.add_argument("--size", nargs="+", default=["80x24", "160x48"], help="terminal sizes, COLSxROWS")
    parser.add_argument("--mode", nargs="+", choices=("pilot", "tmux"), default=["pilot", "tmux"])
    parser.add_argument(
        "--latency",
        type=float,
        default=float(os.environ.get("PXP_OFFLINE_LATENCY") or 0),
        help="seconds the offline machine takes per call (PXP_OFFLINE_LATENCY; default 0)",
    )
    parser.add_argument(
        "--answer",
        choices=tuple(ANSWERS),
        default="ratify",
        help="ratify: 1 at message 2; refute: 2 at message 2, then 1 at message 4",
    )
    parser.add_argument("--think", type=float, default=0.5, help="seconds the expert waits at each turn before answering")
    parser.add_argument("--context", default="all", help="the run's context policy (default all, as the app's)")
    parser.add_argument("--profile", metavar="DIR", help="profile with pyinstrument; sessions saved in DIR, top entries printed")
    parser.add_argument("--top", type=int, default=15, help="profile entries printed (default 15)")
    parser.add_argument("--litellm-calls", type=int, default=30, help="calls of the quiet-loop litellm measurement (0: skip)")
    parser.add_argument(
        "--first-paint",
        type=int,
        nargs="?",
        const=5,
        default=0,
        metavar="RUNS",
        help="also measure first paint (RUNS runs, default 5) and list the imports before it",
    )
    parser.add_argument("--json", metavar="FILE", help="write every step's numbers to FILE")
    parser.add_argument("--docs", action="store_true", help="also write the summary's medians into docs/performance.md")
    parser.add_argument(
        "--bare",
        action="store_true",
        help="tmux mode: run the app without the probe (screen times only), to see what measuring costs",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--run-id", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--events", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for size in args.size:
        parts = size.split("x")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            parser.error(f"--size {size!r}: expected COLSxROWS, e.g. 80x24")
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        import latency_tmux

        profile = Path(args.child_profile) if args.child_profile else None
        latency_tmux.child(Path(args.db), args.run_id, Path(args.events), profile, args.bare)
        return 0
    os.environ["PXP_OFFLINE_LATENCY"] = str(args.latency)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    args.images = os.environ.get("PXP_IMAGES")  # the user's choice; otherwise half-cell in Pilot, auto in tmux
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    print(
        f"turn latency, {os.cpu_count()} cores, load average {load():.2f}; offline machine, PXP_OFFLINE_LATENCY={args.latency:g}",
        flush=True,
    )
    for task in args.task if args.litellm_calls else ():
        print(litellm_baseline(task, args.litellm_calls), flush=True)
    from latency_probe import Probe, install

    probe = install(Probe()) if "pilot" in args.mode else Probe()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.mode:
            for task in args.task:
                for size in args.size:
                    if mode == "pilot":
                        os.environ["PXP_IMAGES"] = args.images or "halfcell"
                    for result in measure(task, size, mode, args, probe, Path(tmp)):
                        results.append(result)
                        print()
                        print(report(result, args), flush=True)
    print()
    print(summary(results))
    if args.docs:
        answers = ", then ".join(f"{TAGS[k]} at message {2 * (i + 1)}" for i, k in enumerate(ANSWERS[args.answer]))
        note = (
            f"Medians in ms from ctrl+s, {answers} in each session; after a session's last answer (b) is its outcome "
            "and (c) counts from the enter that leaves it. The target: (b) at most 100 ms. ref ms is the machine's speed "
            "(a fixed pure-Python loop; smaller is faster) before and after each configuration."
        )
        write_section("turn_latency", "Medians per configuration", docs_table(results) + "\n\n" + note)
    if args.first_paint:
        print()
        print(first_paint_section(args.first_paint))
    if args.json:
        Path(args.json).write_text(json.dumps([{**asdict(r), "steps": [asdict(s) for s in r.steps]} for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
