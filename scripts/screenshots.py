"""Regenerate the app's screenshots in docs/: start, sessions, metrics, outcome, summary, review; 80x24 and 160x48.

    python scripts/screenshots.py [--out docs] [--only NAME ...] [--check]

Drives the real app with Pilot on the bundled demos and the offline machine (pictures as half-cell
blocks, as in tmux; a small X-ray kept in its pane) and saves SVG; with `rsvg-convert` on PATH, PNG instead (the SVG is removed
unless ``--keep-svg``). ``--check`` writes nothing in docs/: it renders each PNG in a temporary folder, compares its
pixels with the one in docs/ (Pillow) and exits 1 naming each that differs or is missing (a stale screenshot).
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

os.environ.setdefault("PXP_IMAGES", "halfcell")
os.environ.setdefault("PXP_FULL_SCREEN", "never")  # the session's own layout (its X-ray would open full-screen by itself)
os.environ.setdefault("PXP_OFFLINE_LATENCY", "0")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pxp_tui.app.shell.pxp_app import PXPApp  # noqa: E402
from pxp_tui.app.start import screen as start  # noqa: E402
from tests.app_helpers import expert_turn, make_run, outcome_shown, run_done, type_answer, wait_for  # noqa: E402

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
    await settle(pilot)


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def review_sessions(pilot, app) -> None:
    """The review of a finished proxy run: its sessions, with tag glyphs, flags and stop reasons."""
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def review_replay(pilot, app) -> None:
    """One session replayed: the instance drawn, the messages so far, the reaction of the latest."""
    await review_sessions(pilot, app)
    await pilot.press("down", "down", "down", "enter")
    await settle(pilot)
    await pilot.press("right", "right")
    await settle(pilot)


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
        await pilot.pause(1.0)  # pictures are drawn in threads
        path = out / f"{name}-{size[0]}x{size[1]}.svg"
        path.write_text(place_glyphs(app.export_screenshot()), encoding="utf-8")
    return path


def stale(fresh: Path, kept: Path) -> str | None:
    """Why the PNG ``kept`` is not the ``fresh`` one the app renders now (None: the same pixels)."""
    from PIL import Image, ImageChops

    if not kept.exists():
        return "missing"
    with Image.open(fresh) as new, Image.open(kept) as old:
        if new.size != old.size:
            return f"{old.size[0]}x{old.size[1]} pixels, the app renders {new.size[0]}x{new.size[1]}"
        box = ImageChops.difference(new.convert("RGB"), old.convert("RGB")).getbbox()
    return None if box is None else f"differs from what the app renders in the pixels {box}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--keep-svg", action="store_true", help="keep the SVG next to the PNG")
    parser.add_argument("--only", nargs="+", choices=list(SCENES), metavar="NAME", help="only these scenes")
    parser.add_argument("--check", action="store_true", help="write nothing in --out; exit 1 naming each stale PNG")
    args = parser.parse_args()
    if args.check and not shutil.which("rsvg-convert"):
        print("screenshots: --check needs rsvg-convert (Debian: librsvg2-bin)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    start.default_name = lambda: "alice"
    args.out = args.out.resolve()
    found: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        rendered = Path(tmp) / "rendered"
        rendered.mkdir()
        for name in args.only or SCENES:
            for size in SIZES:
                shot = asyncio.run(shoot(name, size, rendered if args.check else args.out, Path(tmp)))
                if shutil.which("rsvg-convert"):
                    subprocess.run(["rsvg-convert", str(shot), "-o", str(shot.with_suffix(".png"))], check=True)
                    if not args.keep_svg:
                        shot.unlink()
                        shot = shot.with_suffix(".png")
                if args.check:
                    kept = args.out / shot.name
                    why = stale(shot, kept)
                    if why:
                        found.append(f"{kept.relative_to(ROOT) if kept.is_relative_to(ROOT) else kept}: {why}")
                    continue
                print(shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot)
    for line in found:
        print(f"{line} (python scripts/screenshots.py --only NAME renders it again)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
