"""Screenshots of a real X-ray in real terminals, for docs/: the papers' case_1 in xterm's Sixel at 160x48 (in
the session and full-screen), and in tmux (half-cell blocks, with the header's note).

    python scripts/terminal_screenshots.py [--data ../shared/data/interact] [--out docs]

Runs the real ``pxp`` (next to this Python) in ``xterm -ti vt340`` on a private ``Xvfb`` (display :41-:49, or
``PXP_TEST_DISPLAYS``), types keys with ``xdotool`` and saves the terminal's window (``xwd``) as PNG. Needs
those programs and tmux (.ci/run installs them) and the papers' data (``train_xray_data.csv`` with its
``xrays/``); nothing of the data is kept but the screenshots.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pxp_harness.waiting import poll  # noqa: E402
from pxp_harness.xscreen import Terminal, XServer, missing  # noqa: E402

PXP = Path(sys.executable).with_name("pxp")
SIZE = (160, 48)


def steady(terminal: Terminal, what: str, colours: int = 200) -> object:
    """The terminal's window once it shows a picture (``colours`` colours or more) and two screenshots in a row agree."""
    last: list[object] = [None]

    def shown() -> object:
        image = terminal.screenshot()
        same = last[0] is not None and last[0].tobytes() == image.tobytes()  # type: ignore[attr-defined]
        last[0] = image
        many = len(image.getcolors(1 << 24) or ()) >= colours
        return image if same and many else None

    return poll(shown, what, step=1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "interact")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    absent = missing("Xvfb", "xterm", "xdotool", "xwd", "xdpyinfo", "tmux")
    if absent or not (args.data / "train_xray_data.csv").exists():
        print(f"needs {', '.join(absent) or 'the papers data'} ({args.data})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        db = home / "sessions.db"
        subprocess.run([str(PXP), "import", "rad", str(args.data / "train_xray_data.csv"), "--db", str(db)], check=True)
        env = {
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "HOME": str(home),
            "PXP_CONFIG_DIR": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "PXP_OFFLINE_LATENCY": "0",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        run = [str(PXP), "run", "--task", "rad", "--dataset", "train_xray_data", "--human", "live", "--limit", "1"]
        server = XServer().start()
        try:
            _copy(db, home / "sixel.db")
            terminal = Terminal(server, "xterm", [*run, "--db", str(home / "sixel.db")], SIZE, env)
            try:
                steady(terminal, "case_1 in the session (Sixel)").save(args.out / "xray-sixel-160x48.png")  # type: ignore[attr-defined]
                terminal.keys("f")
                first = terminal.screenshot()
                poll(lambda: terminal.screenshot().tobytes() != first.tobytes(), "full-screen", step=0.25)
                steady(terminal, "case_1 full-screen (Sixel)").save(args.out / "xray-sixel-full-160x48.png")  # type: ignore[attr-defined]
            finally:
                terminal.close()
            _copy(db, home / "tmux.db")
            socket = f"pxp-screenshots-{os.getpid()}"  # a private server of its own
            inner = " ".join(["env", *(f"{k}={v}" for k, v in env.items() if k != "TERM"), *run, "--db", str(home / "tmux.db")])
            terminal = Terminal(server, "xterm", ["tmux", "-L", socket, "-f", "/dev/null", "new-session", inner], SIZE, env)
            try:

                def pane() -> str:
                    return subprocess.run(["tmux", "-L", socket, "capture-pane", "-p"], capture_output=True, text=True).stdout

                poll(lambda: "passes no pictures" in pane() and "▀" * 20 in pane(), "case_1 in tmux, with its note", step=0.25)
                steady(terminal, "case_1 in tmux", colours=20).save(args.out / "xray-tmux-160x48.png")  # type: ignore[attr-defined]
            finally:
                subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
                terminal.close()
        finally:
            server.close()
    for name in ("xray-sixel-160x48", "xray-sixel-full-160x48", "xray-tmux-160x48"):
        print(args.out / f"{name}.png")
    return 0


def _copy(db: Path, to: Path) -> None:
    """A copy of the imported blackboard (each terminal's run its own, from the same import)."""
    import sqlite3

    with sqlite3.connect(db) as source, sqlite3.connect(to) as target:
        source.backup(target)


if __name__ == "__main__":
    raise SystemExit(main())
