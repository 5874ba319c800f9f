"""Blocks of the docs written by code, and a benchmark's latest figures written into ``docs/performance.md``.

A block is the text between ``<!-- KIND:NAME -->`` and ``<!-- /KIND:NAME -->`` on a page (:func:`markers`):
:func:`block` reads it and :func:`replace_block` replaces it, touching nothing else on the page, so the
prose around the blocks is kept by hand and the blocks by the scripts. ``scripts/docs_reference.py`` writes
the reference blocks (kind ``reference``: keys, options, states, presets). Each benchmark owns one block of
``docs/performance.md`` (kind ``benchmark``); ``write_section`` replaces it (or appends it when the page has
none) with the figures, the command that measured them, the machine they were measured on and its load.

Only figures measured on a quiet machine are written. The load average is read when this module is imported
(a benchmark imports it at its top, so: when it starts) and again when the block is written, and the block says
both. When either is over the machine's number of cores, other work shared the cores and the disk, a regression
would hide in the noise, and ``write_section`` refuses to write docs/performance.md, saying so, leaving it as it
was (another page, ``PXP_PERFORMANCE_PAGE``, is written whatever the load: the tests use one).
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
#: the project's page of figures, written only from a quiet machine
DOCS_PAGE = ROOT / "docs" / "performance.md"
#: the page the blocks are written to (``PXP_PERFORMANCE_PAGE`` names another, for the tests: written whatever the load)
PAGE = Path(os.environ.get("PXP_PERFORMANCE_PAGE") or DOCS_PAGE)


def load_average() -> float:
    """The machine's load average over the last minute (0.0 where the system does not say)."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return 0.0


def cores() -> int:
    return os.cpu_count() or 1


#: the load average when the benchmark started (when it imported this module)
STARTED = load_average()


class BusyMachineError(SystemExit):
    """The machine was busy while the figures were measured: the page is not written (the benchmark exits with 1)."""


def check_quiet(started: float | None = None, ended: float | None = None) -> tuple[float, float]:
    """(the load average at the start, now); :class:`BusyMachineError`, saying why, when either is over the cores."""
    started = STARTED if started is None else started
    ended = load_average() if ended is None else ended
    count = cores()
    if max(started, ended) > count:
        raise BusyMachineError(
            f"docs/performance.md not written: the load average was {started:.1f} at the start and {ended:.1f} at the "
            f"end, over the {count} cores of this machine, so other work shared its cores and disk and the figures "
            "would hide a regression in their noise. Measure again on a quiet machine (`uptime` under the core count)."
        )
    return started, ended


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


def write_section(
    name: str, title: str, body: str, *, command: str | None = None, page: Path = PAGE, own_load: str | None = None
) -> Path:
    """Replace benchmark ``name``'s block of ``page`` with ``title``, the command, the machine, ``body`` (Markdown)
    and the load average at the start and now; append the block when the page has none. Returns the page's path.
    :class:`BusyMachineError` (the page untouched) when the page is docs/performance.md and the load was over the
    core count (:func:`check_quiet`). ``own_load`` names the processes of the benchmark's own that run on every core
    (a browser, a server, its apps): the load at the end is theirs as much as anything else's, so only the load at
    the start is checked, and the block says whose the load at the end is."""
    markers("benchmark", name)  # a bad name is refused before anything is measured or written
    if page.resolve() == DOCS_PAGE.resolve():
        started, ended = check_quiet(ended=0.0) if own_load else check_quiet()
        ended = load_average() if own_load else ended
    else:
        started, ended = STARTED, load_average()
    body = "\n".join(
        [
            f"### {title}",
            "",
            f"Measured with `{command or command_line()}` on {machine()}.",
            "",
            body.strip(),
            "",
            f"Load average {started:.1f} at the start, {ended:.1f} at the end"
            + (f" (with {own_load} running)" if own_load else "")
            + f" ({cores()} cores).",
        ]
    )
    text = page.read_text() if page.exists() else "# Performance\n"
    text = replace_block(text, "benchmark", name, body, append=True)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text if text.endswith("\n") else text + "\n")
    return page
