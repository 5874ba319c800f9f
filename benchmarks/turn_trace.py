"""The critical path of one REFUTE step, in order: what happens between ctrl+s and the reply painted.

    python benchmarks/turn_trace.py [--steps 6] [--task drug rad] [--size 80x24 160x48]

``turn_latency.py`` says how long a step takes and what the UI loop was busy with; this says in which
order, on the path the expert waits on. The real app in Pilot (as ``turn_latency.py --mode pilot``),
the offline machine (``PXP_OFFLINE_LATENCY=0``), half-cell pictures; at message 2 of each session the
expert chooses REFUTE (2) and sends it. Timed wrappers (from outside, as ``latency_probe.py``) stamp,
from ctrl+s, the moment each of these ends:

- ``send handled``: the session screen's ``_submit`` (the answer handed to the engine, the hold opened);
- ``expert's message shown``, ``machine's reply shown``: ``on_message_recorded`` for messages 2 and 3
  (each after its commit; the machine's after its litellm call);
- ``turn opened``: ``on_human_turn`` for message 4 (the answer pane prepared);
- ``frames resumed``: the send's hold on the frames released (``ReplyWait``), once the widgets mounted
  meanwhile are mounted; ``loop busy before`` is the UI loop's time in callbacks of 0.5 ms or more
  between ``turn opened`` and this (the mounts, the footer's keys, focus: Textual's messages);
- ``render starts`` (the layout of the screen done) and ``render``: the first frame rendered after it,
  the reply on the screen (``turn_latency.py``'s (b));
- ``UI thread's CPU time``: how much of the wait until ``render`` the UI loop's thread was busy
  (``time.thread_time``): what is left when it is close to ``render`` is the app's own work, not waiting.

Prints the median and range of each over ``--steps`` sessions (the first is left out: imports, caches).
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from turn_latency import load, make_run, press, until  # this folder's helpers

now = time.perf_counter
MILESTONES = [
    "send handled",
    "expert's message shown",
    "machine's reply shown",
    "turn opened",
    "frames resumed",
    "render starts",
    "render",
]


class Trace:
    """Stamps from ctrl+s (``start``) until ``stop``: the first time each milestone is reached."""

    def __init__(self) -> None:
        self.t0: float | None = None
        self.stamps: dict[str, float] = {}
        self.busy = 0.0  # UI loop callbacks of 0.5 ms or more between "turn opened" and "frames resumed"
        self.cpu0, self.cpu = 0.0, 0.0  # the UI thread's CPU time at ctrl+s, and from there to the reply painted

    def start(self) -> None:
        self.t0, self.stamps, self.busy, self.cpu0 = now(), {}, 0.0, time.thread_time()

    def stamp(self, name: str) -> None:
        if self.t0 is not None and name not in self.stamps:
            self.stamps[name] = (now() - self.t0) * 1000
            if name == "render":  # the UI loop's thread (this one, in Pilot) was busy for this much of the wait
                self.cpu = (time.thread_time() - self.cpu0) * 1000


def install(trace: Trace) -> None:
    """Wrap the app's and Textual's methods (class attributes, so every instance is traced)."""
    import asyncio.events

    from pxp_tui.app.session import reply_wait
    from pxp_tui.app.session.screen import SessionScreen
    from tests.internals import HANDLE_RUN, Compositor

    def after(cls: Any, name: str, milestone: Any, before: Any = None) -> None:
        original = getattr(cls, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if before is not None and before(*args):
                trace.stamp(before(*args))
            result = original(*args, **kwargs)
            label = milestone(*args) if callable(milestone) else milestone
            if label:
                trace.stamp(label)
            return result

        setattr(cls, name, wrapper)

    def recorded(screen: Any, event: Any) -> str | None:
        return {2: "expert's message shown", 3: "machine's reply shown"}.get(event.message.j)

    def resumed(wait: Any) -> str | None:
        return "frames resumed" if "turn opened" in trace.stamps and not wait.active else None

    def opened(screen: Any, event: Any) -> None:
        trace.stamp("turn opened")
        if not screen.reply_wait.active:  # the hold ended inside the handler (nothing left to mount)
            trace.stamp("frames resumed")  # frames resume when the handler returns

    def framed(label: str) -> Any:
        return lambda *args: label if "frames resumed" in trace.stamps else None

    after(SessionScreen, "_submit", "send handled")
    after(SessionScreen, "on_message_recorded", recorded)
    after(SessionScreen, "on_human_turn", opened)
    after(reply_wait.ReplyWait, "_close", resumed)
    after(Compositor, "render_update", framed("render"), before=framed("render starts"))

    run = getattr(asyncio.events.Handle, HANDLE_RUN)

    def timed_run(handle: Any) -> None:
        started = now()
        run(handle)
        took = now() - started
        if took >= 0.0005 and "turn opened" in trace.stamps and "frames resumed" not in trace.stamps:
            trace.busy += took * 1000

    setattr(asyncio.events.Handle, HANDLE_RUN, timed_run)


async def steps(app: Any, trace: Trace, count: int) -> list[dict[str, float]]:
    from pxp_tui.app.session.widgets.tag_choice import TagChoice
    from pxp_tui.protocol import Tag

    def turn(j: int) -> Any:
        screen = app.screen
        exchange = getattr(screen, "exchange", None)
        return getattr(screen, "state", None) == "human" and exchange is not None and exchange.next_j == j

    found = []
    for order in range(count + 1):
        await until(lambda: turn(2), what=f"message 2 of session {order + 1}")
        await asyncio.sleep(0.3)  # the expert reads
        press(app, "2")
        await until(lambda: app.screen.query_one(TagChoice).selected is Tag.REFUTE, what="REFUTE chosen")
        await asyncio.sleep(0.05)
        trace.start()
        press(app, "ctrl+s")
        await until(lambda: turn(4) and "render" in trace.stamps, what="the reply painted")
        await asyncio.sleep(0.3)
        if order:  # the first step pays for imports and empty caches
            found.append({**trace.stamps, "loop busy before": trace.busy, "UI thread's CPU time": trace.cpu})
        trace.t0 = None
        press(app, "1")
        await until(lambda: app.screen.query_one(TagChoice).selected is Tag.RATIFY, what="RATIFY chosen")
        press(app, "ctrl+s")
        await until(lambda: getattr(app.screen, "state", None) == "outcome", what="the outcome")
        press(app, "n")
    await until(lambda: turn(2), what="the next session's first turn")  # no machine call left pending at exit
    return found


def measure(trace: Trace, task: str, size: tuple[int, int], count: int, tmp: Path) -> list[dict[str, float]]:
    from pxp_tui.app.shell.pxp_app import PXPApp

    db = tmp / f"{task}-{size[0]}x{size[1]}.db"
    run_id = make_run(db, task, count + 2, "all")

    async def main() -> list[dict[str, float]]:
        app = PXPApp(db, run_id=run_id)
        async with app.run_test(size=size):
            found = await steps(app, trace, count)
            app.exit()
        return found

    return asyncio.run(main())


def report(task: str, size: str, found: list[dict[str, float]]) -> str:
    lines = [f"{task.upper()} {size}, {len(found)} steps, ms from ctrl+s (median, range)"]
    # busy and CPU time: durations, not moments
    for name in [*MILESTONES[:5], "loop busy before", *MILESTONES[5:], "UI thread's CPU time"]:
        values = [step[name] for step in found if name in step]
        if not values:
            lines.append(f"  {name:28s} {'-':>7s}")
            continue
        lines.append(f"  {name:28s} {statistics.median(values):7.1f}  {min(values):6.1f}-{max(values):.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6, help="REFUTE steps measured per configuration (default 6)")
    parser.add_argument("--task", nargs="+", default=["drug", "rad"], choices=["drug", "rad"])
    parser.add_argument("--size", nargs="+", default=["80x24", "160x48"], help="terminal sizes, COLSxROWS")
    args = parser.parse_args(argv)
    os.environ.update(PXP_OFFLINE_LATENCY="0", PXP_IMAGES=os.environ.get("PXP_IMAGES", "halfcell"))
    trace = Trace()
    install(trace)
    with tempfile.TemporaryDirectory() as folder:
        os.environ.setdefault("PXP_CONFIG_DIR", str(Path(folder) / "config"))
        for task in args.task:
            for size in args.size:
                cols, rows = (int(v) for v in size.split("x"))
                before = load()
                found = measure(trace, task, (cols, rows), args.steps, Path(folder))
                print(report(task, size, found), f"\n  load average {before:.2f}-{load():.2f}\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
