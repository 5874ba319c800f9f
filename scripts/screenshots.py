"""Regenerate the app's screenshots in docs/: start, sessions, metrics, outcome, summary, review; 80x24 and 160x48.

    python scripts/screenshots.py [--out docs] [--only NAME ...] [--check] [--all]

Drives the real app with Pilot on the bundled demos and the offline machine (pictures as half-cell
blocks, as in tmux; a small X-ray kept in its pane) and saves SVG; with `rsvg-convert` on PATH, PNG instead (the SVG is removed
unless ``--keep-svg``). Each PNG records the screen it shows (a digest of the app's SVG, and its text, in PNG text
chunks). ``--check`` writes nothing in docs/ and needs no ``rsvg-convert``: it renders each screen again and exits 1
naming each PNG in docs/ that records another screen, none, or is missing (a stale screenshot), with the first row
that differs. The times measured while a scene plays are pinned (:func:`pin_times`), so a fresh screenshot always
passes. ``--all`` makes every screenshot in docs/: the app's, then the real terminals' and the browser's
(``scripts/terminal_screenshots.py``, ``scripts/browser_screenshot.py``: Xvfb, xterm, tmux, Chromium and the papers'
X-ray; pictures of real programs, whose pixels no check can expect, so ``--check`` leaves them out).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("PXP_IMAGES", "halfcell")
os.environ.setdefault("PXP_FULL_SCREEN", "never")  # the session's own layout (its X-ray would open full-screen by itself)
os.environ.setdefault("PXP_OFFLINE_LATENCY", "0")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pxp_harness.app_helpers import (  # noqa: E402
    expert_turn,
    make_run,
    outcome_shown,
    run_done,
    settled,
    type_answer,
    wait_for,
)
from pxp_tui.app.shell.pxp_app import PXPApp  # noqa: E402
from pxp_tui.app.start import screen as start  # noqa: E402

SIZES = ((80, 24), (160, 48))
Scene = Callable[[object, PXPApp], Awaitable[None]]


async def start_screen(pilot, app: PXPApp) -> None:
    """The form (its fields mounted a frame after the rest) and the unfinished runs, read."""

    def ready() -> bool:
        screen = app.screen
        if not isinstance(screen, start.StartScreen) or not screen.fields.mounted.is_set():
            return False
        listed = screen.query_one("#start-unfinished")
        return listed.option_count > 0 and "…" not in str(listed.get_option_at_index(0).prompt)

    await wait_for(pilot, ready, "the start screen")


async def drug_session(pilot, app: PXPApp) -> None:
    """The expert refuted with their own reactants; the machine revised; the expert's turn at j = 4."""
    await expert_turn(pilot, app, j=2)
    await pilot.press("2")
    await type_answer(
        pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine; it is more nucleophilic than the phenol."
    )
    await pilot.press("ctrl+s")
    await expert_turn(pilot, app, j=4)
    await type_answer(pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1")
    app.screen.query_one("TagChoice").focus()
    await pilot.press("g")


async def rad_session(pilot, app: PXPApp) -> None:
    await expert_turn(pilot, app, j=2)


async def picture_rad(pilot, app: PXPApp) -> None:
    """The X-ray full-screen (f), zoomed in to 3x (+ + +) on the right lung (left)."""
    await expert_turn(pilot, app, j=2)
    await pilot.press("f")
    for key in ("plus", "plus", "plus", "left"):
        await wait_for(pilot, lambda: getattr(app.screen, "shown", None), "the X-ray full-screen")
        shown = app.screen.shown
        await pilot.press(key)
        await wait_for(pilot, lambda before=shown: app.screen.shown != before, f"the X-ray after {key}")
    await pilot.pause(0.5)


async def picture_drug(pilot, app: PXPApp) -> None:
    """The target molecule full-screen (f)."""
    await expert_turn(pilot, app, j=2)
    await pilot.press("f")
    await wait_for(pilot, lambda: app.screen.query(".picture-cells"), "the molecule full-screen")


async def metrics_view(pilot, app: PXPApp) -> None:
    """Four sessions: two ratified at once, one refuted then revised, one rejected; then the metrics view."""
    for answer in ("ratify", "refute-revise", "ratify", "reject"):
        await expert_turn(pilot, app, j=2)
        if answer == "ratify":
            await pilot.press("1", "ctrl+s")
            continue
        await pilot.press("2")
        await type_answer(pilot, app, "CCO.Nc1ccc(O)cc1", "An alkylation, not an acylation.")
        await pilot.press("ctrl+s")
        await expert_turn(pilot, app, j=4)
        app.screen.query_one("TagChoice").focus()
        await pilot.press("4" if answer == "reject" else "1", "ctrl+s")
        if answer == "reject":
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the confirmation")
            await pilot.press("y")
    await expert_turn(pilot, app, j=2)
    await pilot.press("m")


async def outcome(pilot, app: PXPApp) -> None:
    """A session the expert refuted, the machine revised, both ratified: its outcome, before moving on."""
    await expert_turn(pilot, app, j=2)
    await pilot.press("2")
    await type_answer(
        pilot, app, "CC(=O)Cl.Nc1ccc(O)cc1", "Acetyl chloride acylates the amine; it is more nucleophilic than the phenol."
    )
    await pilot.press("ctrl+s")
    await expert_turn(pilot, app, j=4)
    app.screen.query_one("TagChoice").focus()
    await pilot.press("1", "ctrl+s")
    await outcome_shown(pilot, app)


async def summary(pilot, app: PXPApp) -> None:
    """The end of a three-session run: the outcome of the first, then two ratified; the run's summary."""
    await outcome(pilot, app)
    for _ in range(2):
        await expert_turn(pilot, app, j=2)
        await pilot.press("1", "ctrl+s")
    await run_done(pilot, app)
    await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", "the summary")
    await settled(pilot)


async def review_sessions(pilot, app) -> None:
    """The review of a finished proxy run: its sessions, with tag glyphs, flags and stop reasons."""
    await settled(pilot)
    await pilot.press("enter")
    await settled(pilot)


async def review_replay(pilot, app) -> None:
    """One session replayed: the instance drawn, the messages so far, the reaction of the latest."""
    await review_sessions(pilot, app)
    await pilot.press("down", "down", "down", "enter")
    await settled(pilot)
    await pilot.press("right", "right")
    await settled(pilot)


async def proxy_run(db: Path, limit: int = 8) -> None:
    """A finished offline proxy run on the DRUG demo, for the review screens."""
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.create import create_run
    from pxp_tui.runs.execute import execute

    with Blackboard.open(db) as board:
        await execute(board, create_run(board, RunConfig(task="drug", limit=limit)))


SCENES: dict[str, tuple[dict, Scene]] = {
    "start": ({}, start_screen),
    "session-drug": ({"task": "drug", "limit": 3}, drug_session),
    "session-rad": ({"task": "rad", "limit": 3}, rad_session),
    "picture-rad": ({"task": "rad", "limit": 3}, picture_rad),
    "picture-drug": ({"task": "drug", "limit": 3}, picture_drug),
    "metrics": ({"task": "drug", "limit": 6}, metrics_view),
    "outcome": ({"task": "drug", "limit": 3}, outcome),
    "summary": ({"task": "drug", "limit": 3}, summary),
    "review-sessions": ({"review": True}, review_sessions),
    "review-replay": ({"review": True}, review_replay),
}


_TEXT = re.compile(r"<text ([^>]*)>([^<]*)</text>")
_ATTRIBUTE = re.compile(r'\b(x|textLength)="([0-9.]+)"')


def place_glyphs(svg: str) -> str:
    """Every character of the SVG's text placed in its own cell.

    Rich writes a run of text as one ``<text>`` with ``textLength``; rsvg-convert lays it out with the
    font's own advances, so glyphs from a fallback font (braille, block elements) drift out of their
    columns. One ``<text>`` per character (blanks left out) keeps the terminal's grid.
    """

    def one(match: re.Match[str]) -> str:
        attributes, text = match[1], html.unescape(match[2])
        found = dict(_ATTRIBUTE.findall(attributes))
        if len(text) < 2 or "x" not in found or "textLength" not in found:
            return match[0]
        x, width = float(found["x"]), float(found["textLength"]) / len(text)
        rest = _ATTRIBUTE.sub("", attributes)
        return "".join(
            f'<text x="{x + i * width:.2f}" textLength="{width:.2f}" {rest}>{html.escape(ch)}</text>'
            for i, ch in enumerate(text)
            if ch not in " \u2800"
        )

    return _TEXT.sub(one, svg)


async def shoot(name: str, size: tuple[int, int], out: Path, tmp: Path) -> Path:
    fields, scene = SCENES[name]
    db = Path(f"{name}-{size[0]}x{size[1]}.db")  # in tmp, the working directory: no temporary path on screen
    if fields.get("review"):
        from pxp_tui.app.review.review_app import ReviewApp

        await proxy_run(db)
        app = ReviewApp(db)
    else:
        app = PXPApp(db, run_id=make_run(db, **fields) if fields else None)
    async with app.run_test(size=size) as pilot:
        await scene(pilot, app)
        await settled(pilot)  # pictures drawn, workers done, the header and footer current
        path = out / f"{name}-{size[0]}x{size[1]}.svg"
        path.write_text(place_glyphs(app.export_screenshot()), encoding="utf-8")
    return path


def pin_times() -> None:
    """The times measured while a scene is played, the same in every render: each machine call takes the model 2 ms
    and the app 7 ms around it (the machine pane's "2 ms · app +7 ms"); the summary's run took 40 s a session
    (the scenes answer within a second, which no expert does)."""
    from pxp_tui.agents.llm import LLMClient
    from pxp_tui.blackboard import run_time

    complete, timed = LLMClient.complete, run_time.run_time

    async def pinned_call(self: LLMClient, *args: object, **kwargs: object) -> object:
        return replace(await complete(self, *args, **kwargs), latency_ms=2.0, call_ms=9.0)

    def pinned_run(board: object, run_id: int) -> object:
        made = timed(board, run_id)  # type: ignore[arg-type]
        return replace(made, in_sessions=40.0 * made.finished, span=50.0 * made.finished)

    LLMClient.complete = pinned_call  # type: ignore[assignment,method-assign]
    run_time.run_time = pinned_run  # type: ignore[assignment]


_CELL = re.compile(r'<text\b[^>]*?\bx="([0-9.]+)"[^>]*?line-(\d+)\)"[^>]*>([^<]*)</text>')


def screen_text(svg: str) -> str:
    """The screen's characters, row by row, read back from the SVG (one ``<text>`` per cell after :func:`place_glyphs`)."""
    rows: dict[int, dict[int, str]] = {}
    for match in _CELL.finditer(svg):
        text = html.unescape(match[3])
        column = round(float(match[1]) / 12.2)
        for i, ch in enumerate(text):
            rows.setdefault(int(match[2]), {})[column + i] = ch
    return "\n".join(
        "".join(row.get(c, " ") for c in range(max(row) + 1)).rstrip() if (row := rows.get(r)) else ""
        for r in range(max(rows, default=-1) + 1)
    )


def screen_record(svg: str) -> dict[str, str]:
    """What a PNG records of the screen it shows: a digest of the SVG (colours and styles too), and its text."""
    digest = hashlib.sha256(re.sub(r"terminal-\d+", "terminal", svg).encode()).hexdigest()
    return {"pxp-screen": digest, "pxp-screen-text": screen_text(svg)}


def save_png(svg_path: Path) -> Path:
    """The SVG as a PNG beside it (rsvg-convert), recording the screen it shows."""
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    png = svg_path.with_suffix(".png")
    subprocess.run(["rsvg-convert", str(svg_path), "-o", str(png)], check=True)
    info = PngInfo()
    for key, value in screen_record(svg_path.read_text(encoding="utf-8")).items():
        info.add_itxt(key, value)
    with Image.open(png) as picture:
        picture.load()
    picture.save(png, pnginfo=info)
    return png


def stale(svg: str, kept: Path) -> str | None:
    """Why the PNG ``kept`` is not the screen the app renders now as ``svg`` (None: the same screen)."""
    from PIL import Image

    if not kept.exists():
        return "missing"
    with Image.open(kept) as picture:
        recorded = {key: str(value) for key, value in getattr(picture, "text", {}).items()}
    now = screen_record(svg)
    if "pxp-screen" not in recorded:
        return "records no screen (not made by this command)"
    if recorded["pxp-screen"] == now["pxp-screen"]:
        return None
    old, new = recorded.get("pxp-screen-text", "").splitlines(), now["pxp-screen-text"].splitlines()
    for row in range(max(len(old), len(new))):
        was, is_now = (old[row] if row < len(old) else ""), (new[row] if row < len(new) else "")
        if was != is_now:
            return f"the app now draws another screen: row {row + 1} was {was.strip()!r}, is {is_now.strip()!r}"
    return "the app now draws the same characters in other colours or styles"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--keep-svg", action="store_true", help="keep the SVG next to the PNG")
    parser.add_argument("--only", nargs="+", choices=list(SCENES), metavar="NAME", help="only these scenes")
    parser.add_argument("--check", action="store_true", help="write nothing in --out; exit 1 naming each stale PNG")
    parser.add_argument("--all", action="store_true", help="also the real terminals' and the browser's screenshots")
    args = parser.parse_args()
    if args.all and (args.check or args.only):
        parser.error("--all makes every screenshot: not with --check or --only")
    start.default_name = lambda: "alice"
    pin_times()
    args.out = args.out.resolve()
    if not args.check:
        args.out.mkdir(parents=True, exist_ok=True)
    found: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        rendered = Path(tmp) / "rendered"
        rendered.mkdir()
        for name in args.only or SCENES:
            for size in SIZES:
                shot = asyncio.run(shoot(name, size, rendered if args.check else args.out, Path(tmp)))
                if args.check:
                    kept = args.out / shot.with_suffix(".png").name
                    why = stale(shot.read_text(encoding="utf-8"), kept)
                    if why:
                        found.append(f"{kept.relative_to(ROOT) if kept.is_relative_to(ROOT) else kept}: {why}")
                    continue
                if shutil.which("rsvg-convert"):
                    png = save_png(shot)
                    if not args.keep_svg:
                        shot.unlink()
                    shot = png
                print(shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot)
    for line in found:
        print(f"{line} (python scripts/screenshots.py --only NAME renders it again)", file=sys.stderr)
    os.chdir(ROOT)  # out of the temporary folder, gone
    failed = [
        script
        for script in ("terminal_screenshots.py", "browser_screenshot.py")
        if args.all and subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--out", str(args.out)]).returncode
    ]
    for script in failed:
        print(f"screenshots: scripts/{script} failed (its own message above)", file=sys.stderr)
    return 1 if found or failed else 0


if __name__ == "__main__":
    sys.exit(main())
