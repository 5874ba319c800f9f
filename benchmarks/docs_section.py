"""A benchmark's latest figures, written by the benchmark itself into ``docs/performance.md``.

Each benchmark owns one block of that page, between ``<!-- benchmark:NAME -->`` and
``<!-- /benchmark:NAME -->``; ``write_section`` replaces the block (or appends it when the page has none)
with the figures, the command that measured them and the machine they were measured on. Nothing else
on the page is touched, so the prose around the blocks is kept by hand and the figures by the scripts.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the page the blocks are written to (``PXP_PERFORMANCE_PAGE`` names another, for the tests)
PAGE = Path(os.environ.get("PXP_PERFORMANCE_PAGE") or ROOT / "docs" / "performance.md")


def machine() -> str:
    """One line naming the machine: CPU model and count, memory, OS and Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages * size / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    python = ".".join(str(part) for part in sys.version_info[:3])
    return f"{os.cpu_count()} cores ({model}){memory}, {platform.system()} {platform.release()}, Python {python}"


def command_line(argv: list[str] | None = None) -> str:
    """The command as the maintainer typed it: ``python benchmarks/NAME.py ARGS`` (the ``--docs`` flag left out)."""
    args = list(sys.argv if argv is None else argv)
    script = Path(args[0])
    with contextlib.suppress(ValueError):
        script = script.resolve().relative_to(ROOT)
    rest = [arg for arg in args[1:] if arg != "--docs"]
    return shlex.join(["python", str(script), *rest])


def write_section(name: str, title: str, body: str, *, command: str | None = None, page: Path = PAGE) -> Path:
    """Replace benchmark ``name``'s block of ``page`` with ``title``, the command, the machine and ``body``
    (Markdown); append the block when the page has none. Returns the page's path."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise ValueError(f"a benchmark's block name is lower-case letters, digits, - and _: {name!r}")
    start, end = f"<!-- benchmark:{name} -->", f"<!-- /benchmark:{name} -->"
    block = "\n".join(
        [
            start,
            f"### {title}",
            "",
            f"Measured with `{command or command_line()}` on {machine()}.",
            "",
            body.strip(),
            end,
        ]
    )
    text = page.read_text() if page.exists() else "# Performance\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _match: block, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text if text.endswith("\n") else text + "\n")
    return page
