"""The work between the expert's send and the reply's frame, counted in Python function calls.

    python benchmarks/turn_calls.py [--steps 6] [--task drug rad] [--size 80x24 160x48] [--answer ratify refute ratify4 next]
                                    [--docs]

``turn_latency.py`` times the wait; on this shared machine its speed changes by up to a half from one
minute to the next, so a change of a tenth in the app's work does not show in milliseconds. This counts
it: cProfile runs from ctrl+s until the end of the first frame that paints what the expert waits for
(``ratify``: RATIFY at message 2, the session's outcome; ``refute``: REFUTE at message 2, the machine's
reply in its pane; ``ratify4``: RATIFY at message 4, after a reply, the outcome; ``next``: from the ``n`` that leaves a RATIFY's outcome to the next instance's turn,
its tag list focused) and reports the function calls made meanwhile (every thread's Python work on the UI
loop's thread: Textual, the app, the engine, litellm). The count barely moves from run to run; the
profiled time is cProfile's (slowed by it), for proportions only. The real app in Pilot, the offline
machine (``PXP_OFFLINE_LATENCY=0``), pictures off (``PXP_IMAGES=none``: the pictures are drawn in threads
this does not count); the first session is left out.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_section import write_section  # first: it reads the load average as the benchmark starts
from turn_latency import make_run, until  # this folder's helpers

KEYS = {"ratify": "1", "refute": "2", "ratify4": "1", "next": "1"}
#: what each --answer counts, as docs/performance.md's columns
COLUMNS = {
    "ratify": "RATIFY at 2: the outcome",
    "refute": "REFUTE at 2: the reply",
    "ratify4": "RATIFY at 4: the outcome",
    "next": "n: the next turn",
}


async def count(task: str, size: tuple[int, int], steps: int, answer: str) -> list[int]:
    from textual.screen import Screen
    from textual.widget import Widget

    from pxp_tui.app.session.widgets.outcome_banner import OutcomeBanner
    from pxp_tui.app.shell.pxp_app import PXPApp

    state: dict[str, Any] = {"profile": None, "painted": False}

    def awaited(widget: Widget) -> bool:  # what the expert waits for, rendered
        if answer == "next":
            return widget.id == "picker-tags" and widget.has_focus
        return isinstance(widget, OutcomeBanner) if answer in ("ratify", "ratify4") else widget.id == "machine-explanation"

    render_lines, refresh_layout = Widget.render_lines, Screen._refresh_layout

    def rendered(self: Widget, crop: Any) -> Any:
        if state["profile"] is not None and awaited(self):
            state["painted"] = True
        return render_lines(self, crop)

    def frame(self: Screen, *args: Any, **kwargs: Any) -> Any:
        result = refresh_layout(self, *args, **kwargs)
        if state["profile"] is not None and state["painted"]:
            state["profile"].disable()  # the frame that painted it has ended
            state["done"], state["profile"] = state["profile"], None
        return result

    Widget.render_lines, Screen._refresh_layout = rendered, frame  # type: ignore[method-assign]
    calls: list[int] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "calls.db"
            run_id = make_run(db, task, steps + 2, "all")
            app = PXPApp(db, run_id=run_id)
            async with app.run_test(size=size) as pilot:
                for step in range(steps + 1):
                    screen = await until(lambda: _turn(app, 2), what="the expert's turn")
                    await pilot.pause(0.3)
                    if answer == "ratify4":  # REFUTE with the proposal's answer (the machine ratifies it), then RATIFY
                        await pilot.press("2")
                        await pilot.pause(0.3)
                        await pilot.press("ctrl+s")
                        await until(lambda: _turn(app, 4), what="the expert's turn at message 4")
                        await pilot.pause(0.3)
                    await pilot.press(KEYS[answer])
                    await pilot.pause(0.3)
                    profile = cProfile.Profile()
                    if answer != "next":
                        state.update(profile=profile, painted=False, done=None)
                        profile.enable()
                    await pilot.press("ctrl+s")
                    if answer != "next":
                        await until(lambda: state["done"] is not None, what="the reply's frame")
                    if step and answer != "next":  # the first: imports, caches
                        calls.append(pstats.Stats(state["done"]).total_calls)  # type: ignore[attr-defined]
                    if answer == "refute":
                        await until(lambda: _turn(app, 4), what="the expert's turn at message 4")
                        await pilot.press("1", "ctrl+s")
                    await until(lambda s=screen: s.state == "outcome", what="the outcome")
                    if answer == "next":  # the outcome read, the next session's proposal drawn ahead meanwhile
                        await pilot.pause(0.5)
                        state.update(profile=profile, painted=False, done=None)
                        profile.enable()
                    await pilot.press("enter")
                    if answer == "next":
                        await until(lambda: state["done"] is not None, what="the next turn's frame")
                        if step:
                            calls.append(pstats.Stats(state["done"]).total_calls)  # type: ignore[attr-defined]
    finally:
        Widget.render_lines, Screen._refresh_layout = render_lines, refresh_layout  # type: ignore[method-assign]
    return calls


def _turn(app: Any, j: int) -> Any:
    screen = app.screen
    exchange = getattr(screen, "exchange", None)
    ready = getattr(screen, "state", None) == "human" and exchange is not None and exchange.next_j == j
    return screen if ready else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--task", nargs="+", default=["drug", "rad"], choices=["drug", "rad"])
    parser.add_argument("--size", nargs="+", default=["80x24", "160x48"])
    parser.add_argument("--answer", nargs="+", default=["ratify", "refute", "ratify4", "next"], choices=list(KEYS))
    parser.add_argument("--images", default="none", help="PXP_IMAGES (default none; halfcell: the pictures' UI work counted too)")
    parser.add_argument("--docs", action="store_true", help="also write the counts into docs/performance.md")
    args = parser.parse_args()
    os.environ["PXP_OFFLINE_LATENCY"] = "0"
    os.environ["PXP_IMAGES"] = args.images
    print("function calls from ctrl+s to the end of the frame that paints the reply (median, range)")
    cells: dict[tuple[str, str], list[str]] = {}
    for task in args.task:
        for size in args.size:
            width, height = (int(v) for v in size.split("x"))
            for answer in args.answer:
                calls = asyncio.run(count(task, (width, height), args.steps, answer))
                print(f"{task:<5} {size:<7} {answer:<7} {statistics.median(calls):>9,.0f}  ({min(calls):,}-{max(calls):,})")
                cells.setdefault((task, size), []).append(f"{statistics.median(calls):,.0f} ({min(calls):,}-{max(calls):,})")
    if args.docs:
        rows = [
            "| task | size | " + " | ".join(COLUMNS[a] for a in args.answer) + " |",
            "|---|---|" + "---:|" * len(args.answer),
            *(f"| {task.upper()} | {size} | " + " | ".join(values) + " |" for (task, size), values in cells.items()),
        ]
        note = f"Function calls, the median of {args.steps} steps (and their range), pictures: PXP_IMAGES={args.images}."
        write_section("turn_calls", "Function calls per step", "\n".join(rows) + "\n\n" + note)


if __name__ == "__main__":
    main()
