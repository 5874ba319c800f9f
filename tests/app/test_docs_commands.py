"""The docs stay true: every `pxp` command, subcommand and flag they show exists, every benchmark flag they show
exists, every file and link they point to is there, and the README keeps its two commands in its first screenful.

Commands are read from the docs' code (code blocks and `inline code`) as a reader would copy them. A `pxp`
command's subcommand and flags are checked against `pxp SUB --help` (run in-process, the real parser); a
`python benchmarks/NAME.py` command's flags against the flags the script defines; a flag shown on its own is
checked against all of them.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from ..conftest import ROOT

#: the pages a user or a developer reads
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").glob("*.md")])
#: programs other than pxp whose command lines the docs show: their flags are theirs, not checked here
OTHER_PROGRAMS = {
    "apt",
    "apt-get",
    "datasette",
    "git",
    "htpasswd",
    "kill",
    "open",
    "pip",
    "python3",
    "rsvg-convert",
    "ruff",
    "setpriv",
    "sqlite-utils",
    "sqlite3",
    "ssh",
    "tmux",
    "unshare",
    "uptime",
    "xdg-open",
}
#: flags of those programs that the docs name on their own, outside a command line
OTHER_FLAGS = {"--bounding-set", "--snapshot-update", "--durations", "--dist", "--counts", "--csv", "--nl", "--fix", "--check"}
FLAG = re.compile(r"--[a-z][a-z0-9-]*")
PATH = re.compile(r"(?<![\w/.-])((?:benchmarks|scripts|tests)/[\w/.-]*\.py)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def code_lines(text: str) -> list[str]:
    """Each line of the fenced code blocks, and each `inline code` span of the prose."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            lines.append(line)
        else:
            lines.extend(re.findall(r"`([^`]+)`", line))
    return lines


def segments(line: str) -> list[list[str]]:
    """``line`` as the simple commands a shell would run (split at ``&&``, ``;``, ``|`` outside brackets), each a
    list of words with a comment cut off; inside [...] a ``|`` is a usage line's alternative."""
    parts, current, depth = [], "", 0
    line = line.split(" #", 1)[0]
    index = 0
    while index < len(line):
        char = line[index]
        depth += {"[": 1, "]": -1}.get(char, 0)
        if line.startswith("&&", index) or (char in ";|" and depth <= 0):
            parts.append(current)
            current = ""
            index += 2 if line.startswith("&&", index) else 1
            continue
        current += char
        index += 1
    parts.append(current)
    return [part.split() for part in parts if part.strip()]


def word(token: str) -> str:
    return token.strip("[](),.;:'\"")


def flag_of(token: str) -> str | None:
    """The flag a word names (``[--n`` -> ``--n``, ``--durations=20`` -> ``--durations``), or None."""
    found = FLAG.match(word(token).split("=", 1)[0])
    return found.group(0) if found and found.group(0) == word(token).split("=", 1)[0] else None


@cache
def pxp_help(sub: str | None) -> str:
    """``pxp SUB --help`` (``pxp --help`` for None), printed by the real parser in this process."""
    from pxp_tui.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([sub, "--help"] if sub else ["--help"])
    return out.getvalue()


def pxp_flags(sub: str | None) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", pxp_help(sub)))


def subcommands() -> set[str]:
    from pxp_tui.cli.main import COMMANDS

    return set(COMMANDS)


@cache
def script_flags(path: Path) -> set[str]:
    """Every flag a script defines: the string constants of its source that are flags (argparse's option strings,
    and the words it looks for in sys.argv)."""
    tree = ast.parse(path.read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and FLAG.fullmatch(node.value)
    }


def every_flag() -> set[str]:
    flags = set().union(pxp_flags(None), *(pxp_flags(sub) for sub in subcommands()))
    for script in (*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "scripts").glob("*.py")):
        flags |= script_flags(script)
    return flags | OTHER_FLAGS


def check_pxp(words: list[str], program: bool = True) -> list[str]:
    """Problems of one `pxp ...` command (``words`` after ``pxp``). ``program``: pxp starts the line, as a command
    does; otherwise it is named in a sentence (an error message: "pxp takes images up to ..."), and only a
    subcommand that follows it is checked."""
    first = word(words[0]) if words else ""
    if not first or first.startswith("-"):
        sub = None
    elif first in subcommands():
        sub, words = first, words[1:]
    elif first.startswith("<") or first.isupper() or first == "..." or not program:
        return []  # a placeholder, or prose
    else:
        return [f"`pxp {first}`: no such subcommand (pxp has {', '.join(sorted(subcommands()))})"]
    known = pxp_flags(sub)
    return [
        f"`pxp {sub or ''} {flag}`: no such flag (see `pxp {sub or ''} --help`)".replace("  ", " ")
        for flag in filter(None, map(flag_of, words))
        if flag not in known
    ]


def check_script(script: str, words: list[str]) -> list[str]:
    if re.search(r"/[A-Z]+\.py$", script):
        return []  # a placeholder: benchmarks/NAME.py
    path = ROOT / script
    if not path.is_file():
        return [f"`{script}`: no such script"]
    known = script_flags(path)
    problems = []
    for token in words:
        if token == "--":
            break  # what follows is the command the script runs
        flag = flag_of(token)
        if flag and flag not in known and flag != "--help":
            problems.append(f"`python {script} {flag}`: the script has no such flag")
    return problems


def check_command(words: list[str]) -> list[str]:
    """Problems of one simple command: pxp's, a benchmark's or a script's, or a flag named on its own."""
    words = [w for w in words if not re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", w) and w != "$"]  # VAR=value, a prompt
    if not words:
        return []
    program = words[0].rsplit("/", 1)[-1]
    starts = [i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == "pxp"]
    if starts:  # one or more `pxp ...` (prose in code: "pxp review, pxp metrics and pxp export")
        problems = []
        for start, end in zip(starts, [*starts[1:], len(words)], strict=True):
            problems += check_pxp(words[start + 1 : end], program=start == 0)
        return problems
    if program in ("python", "python3") and len(words) > 1 and re.fullmatch(r"(benchmarks|scripts)/\w+\.py", words[1]):
        return check_script(words[1], words[2:])
    if re.fullmatch(r"\w+\.py", words[0]) and (ROOT / "benchmarks" / words[0]).is_file():  # `first_paint.py --imports`
        return check_script(f"benchmarks/{words[0]}", words[1:])
    if program in OTHER_PROGRAMS or program in ("python", "pytest") or program.endswith(".py"):
        return []  # another program's flags (python -m pytest, python -X importtime)
    flags = every_flag()
    return [
        f"`{flag}`: no pxp, benchmark or script flag of that name"
        for flag in filter(None, map(flag_of, words))
        if flag not in flags
    ]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in path.read_text().splitlines() if re.match(r"#{1,6} ", line)}


def problems(text: str, page: Path) -> list[str]:
    """Every command, flag, file and link of ``text`` (the page ``page``) that does not exist."""
    found = []
    for line in code_lines(text):
        for words in segments(line):
            found += check_command(words)
    for path in PATH.findall(text):
        if not re.search(r"/[A-Z]+\.py$", path) and not (ROOT / path.split("::")[0]).exists():
            found.append(f"`{path}`: no such file")
    for target in LINK.findall(re.sub(r"`[^`\n]*`", "", text)):  # not in code: `[N+](=O)[O-]`
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.exists():
            found.append(f"link ({target}): no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            found.append(f"link ({target}): no heading #{anchor} in {resolved.name}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_command_flag_file_and_link_the_docs_show_exists(page: Path) -> None:
    assert problems(page.read_text(), page) == []


def test_the_docs_show_the_commands_users_run() -> None:
    """The check reads what it should: the pages show commands of every subcommand, and benchmark commands."""
    shown = [words for page in PAGES for line in code_lines(page.read_text()) for words in segments(line)]
    pxp_subs = {word(w[i + 1]) for w in shown for i, t in enumerate(w[:-1]) if t.rsplit("/", 1)[-1] == "pxp"}
    assert subcommands() <= pxp_subs, subcommands() - pxp_subs
    scripts = {w[1] for w in shown if len(w) > 1 and w[0] == "python" and w[1].startswith("benchmarks/")}
    assert "benchmarks/crash_campaign.py" in scripts
    # every block of the performance page was written by its benchmark, with the command that measured it
    performance = (ROOT / "docs" / "performance.md").read_text()
    blocks = re.findall(r"<!-- benchmark:([\w-]+) -->\n(.*?)<!-- /benchmark:\1 -->", performance, re.DOTALL)
    assert len(blocks) >= 7
    for name, body in blocks:
        measured = re.search(r"Measured with `python (benchmarks/\w+\.py)[^`]*` on \d+ cores", body)
        assert measured, f"the block {name} of docs/performance.md was not written by its benchmark (--docs)"
        assert measured.group(1) in scripts


@pytest.mark.parametrize(
    ("page", "old", "new", "problem"),
    [
        ("docs/tasks-and-data.md", "--seeded-split 60/20/20", "--seed-split 60/20/20", "`pxp import --seed-split`: no such flag"),
        ("README.md", "pxp review", "pxp reviews", "`pxp reviews`: no such subcommand"),
        ("docs/experiments.md", "`--quiet`", "`--quite`", "`--quite`: no pxp, benchmark or script flag"),
        ("docs/reliability.md", "crash_campaign.py [--trials 20]", "crash_campaign.py [--trails 20]", "has no such flag"),
        ("docs/performance.md", "benchmarks/million.py", "benchmarks/millions.py", "no such"),
        (
            "docs/experiments.md",
            "(models-and-keys.md#the-offline-baseline)",
            "(models-and-keys.md#offline)",
            "no heading #offline",
        ),
    ],
)
def test_a_doc_naming_what_does_not_exist_fails_the_check(page: str, old: str, new: str, problem: str) -> None:
    path = ROOT / page
    text = path.read_text()
    assert old in text and problems(text, path) == []
    mutated = problems(text.replace(old, new, 1), path)
    assert any(problem in found for found in mutated), mutated


def command_after(marker: str, page: str) -> str:
    """What `.ci/run` reads after ``marker`` in ``page``: its own function, run by bash."""
    script = (ROOT / ".ci" / "run").read_text()
    function = re.search(r"^command_after\(\) \{\n.*?^\}\n", script, re.DOTALL | re.MULTILINE)
    assert function, "`.ci/run` has no command_after function"
    done = subprocess.run(
        ["bash", "-c", function.group(0) + 'command_after "$1" "$2"', "bash", marker, page],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_ci_finds_its_commands_and_the_readme_shows_its_two_in_the_first_screenful() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    for marker, page, starts in [
        ("test-command", "README.md", "python3 -m venv .venv && "),
        ("lint-command", "CONTRIBUTING.md", "python3 -m venv .venv && "),
        ("docs-check-command", "CONTRIBUTING.md", ".venv/bin/python scripts/docs_reference.py --check"),
        ("slow-test-command", "CONTRIBUTING.md", ".venv/bin/python -m pytest "),
        ("oldest-test-command", "CONTRIBUTING.md", "python3 -m venv .venv-oldest && "),
    ]:
        assert f"command_after {marker} {page}" in script
        assert command_after(marker, page).startswith(starts), (marker, page)
    readme = (ROOT / "README.md").read_text().splitlines()
    first_screen = "\n".join(readme[:40])
    for marker in ("app-command", "test-command"):
        assert f"<!-- {marker} -->" in first_screen
        assert command_after(marker, "README.md") in first_screen
    assert command_after("app-command", "README.md").endswith("&& .venv/bin/pxp")
