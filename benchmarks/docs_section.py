"""Blocks of the docs written by code, and a benchmark's latest figures written into ``docs/performance.md``.

A block is the text between ``<!-- KIND:NAME -->`` and ``<!-- /KIND:NAME -->`` on a page (:func:`markers`):
:func:`block` reads it and :func:`replace_block` replaces it, touching nothing else on the page, so the
prose around the blocks is kept by hand and the blocks by the scripts. Each benchmark owns one block of
``docs/performance.md`` (kind ``benchmark``); ``write_section`` replaces it (or appends it when the page has
none) with the figures, the command that measured them and the machine they were measured on.
``scripts/docs_reference.py`` writes the reference blocks (kind ``reference``: keys, options, states, presets).
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


def markers(kind: str, name: str) -> tuple[str, str]:
    """The lines that open and close block ``name`` of ``kind`` (``benchmark``, ``reference``)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise ValueError(f"a block name is lower-case letters, digits, - and _: {name!r}")
    return f"<!-- {kind}:{name} -->", f"<!-- /{kind}:{name} -->"


def _pattern(kind: str, name: str) -> re.Pattern[str]:
    start, end = markers(kind, name)
    return re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)


def block(text: str, kind: str, name: str) -> str | None:
    """Block ``name`` of ``kind`` in ``text``, its marker lines included; None when the page has none."""
    found = _pattern(kind, name).search(text)
    return found.group(0) if found else None


def replace_block(text: str, kind: str, name: str, body: str, *, append: bool = False) -> str:
    """``text`` with block ``name`` of ``kind`` holding ``body`` (Markdown) between its marker lines. A page
    without the block gets it at its end when ``append``; else :class:`LookupError`."""
    start, end = markers(kind, name)
    new = "\n".join([start, body.strip("\n"), end])
    pattern = _pattern(kind, name)
    if pattern.search(text):
        return pattern.sub(lambda _match: new, text, count=1)
    if not append:
        raise LookupError(f"no block {start} ... {end}")
    return text.rstrip("\n") + "\n\n" + new + "\n"


def write_section(name: str, title: str, body: str, *, command: str | None = None, page: Path = PAGE) -> Path:
    """Replace benchmark ``name``'s block of ``page`` with ``title``, the command, the machine and ``body``
    (Markdown); append the block when the page has none. Returns the page's path."""
    body = "\n".join([f"### {title}", "", f"Measured with `{command or command_line()}` on {machine()}.", "", body.strip()])
    text = page.read_text() if page.exists() else "# Performance\n"
    text = replace_block(text, "benchmark", name, body, append=True)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text if text.endswith("\n") else text + "\n")
    return page
