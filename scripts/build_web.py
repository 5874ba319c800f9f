#!/usr/bin/env python3
"""Build the terminal of the page ``pxp serve`` serves: xterm.js with its image addon, from ``web/``'s lockfile.

``web/package-lock.json`` pins xterm.js, its addons and esbuild; ``web/src/terminal.js`` is the page's own code.
esbuild bundles them into one minified script, and xterm.js's stylesheet is copied beside it, in
``pxp_tui/app/shell/web/static/`` (shipped in the package: a user needs no Node). The build is deterministic:
the same lockfile and source give the same bytes, which ``tests/real/test_web_build.py`` checks.

Usage::

    python scripts/build_web.py --install     # npm ci in web/ (from the registry, by the lockfile), then build
    python scripts/build_web.py               # build with web/node_modules as installed
    python scripts/build_web.py --out DIR     # build into DIR instead (the test compares it with the shipped files)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
SHIPPED = ROOT / "pxp_tui" / "app" / "shell" / "web" / "static"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"
#: the stylesheet xterm.js's terminal needs, copied as it is
STYLESHEET = WEB / "node_modules" / "@xterm" / "xterm" / "css" / "xterm.css"
#: esbuild's options: one script run by a <script> tag, for the browsers of the last years
OPTIONS = ["--bundle", "--minify", "--format=iife", "--target=es2020", "--legal-comments=eof", "--charset=utf8"]


def install() -> None:
    """``npm ci``: web/node_modules exactly as the lockfile says (install scripts not run: none is needed)."""
    subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=WEB, check=True)


def why_not_buildable() -> str | None:
    """Why the page cannot be built here, or None."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs npm; .ci/run installs them)"
    if not ESBUILD.exists():
        return "web/node_modules is not installed (python scripts/build_web.py --install; .ci/run runs it)"
    return None


def build(out: Path) -> list[Path]:
    """Build the page's script and stylesheet into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    script = out / "terminal.js"
    # relative paths: the bundle names its sources, and must not name where the checkout is
    subprocess.run([str(ESBUILD), "src/terminal.js", *OPTIONS, f"--outfile={script}", "--log-level=warning"], cwd=WEB, check=True)
    stylesheet = out / "xterm.css"
    shutil.copyfile(STYLESHEET, stylesheet)
    return [script, stylesheet]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="npm ci in web/ first (by the lockfile)")
    parser.add_argument("--out", type=Path, default=SHIPPED, help=f"where to write (default: {SHIPPED.relative_to(ROOT)})")
    args = parser.parse_args()
    if args.install:
        install()
    reason = why_not_buildable()
    if reason is not None:
        print(f"build_web: cannot build: {reason}", file=sys.stderr)
        return 1
    for path in build(args.out):
        print(f"build_web: wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
