"""Mutation testing of the code that decides what a paper reports: how many deliberate breaks the tests notice.

What is mutated, with which tests, and the scores to reach are in ``scripts/mutation.toml``. mutmut changes the
Python of each group's files one mutation at a time (a comparison, a constant, an argument...) and runs the tests
that call the changed function; ``scripts/sql_mutants.py`` does the same for the SQL texts of the blackboard. A
mutant is killed when a test fails. A surviving mutant that cannot change what the program does (an equivalent
mutant) is listed in ``scripts/mutation_equivalents.toml`` with the reason, and left out of the score; any other
survivor is printed with its change, to be killed by a new test.

One mutant at a time (one worker process; ``--jobs N``: N at once), in a copy of the package in a temporary folder.
Prints the score of each module and group; exits 1 when a group (or the whole) is below its target. ``--docs`` also
writes the scores into CONTRIBUTING.md's ``mutation`` block; ``--ci`` checks only the groups marked ``ci`` (what
.ci/run runs); ``--group NAME`` only that group.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import fnmatch
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sql_mutants

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: mutmut brings the toml package, which reads the same
    import toml as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "scripts" / "mutation.toml"
EQUIVALENTS = ROOT / "scripts" / "mutation_equivalents.toml"
PAGE = ROOT / "CONTRIBUTING.md"
SHARED_DATA = ROOT.parent / "shared" / "data" / "interact"

#: mutmut's exit codes (its ``status_by_exit_code``) as the score counts them
KILLED = {1: "killed", 3: "killed", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout"}
KILLED |= {37: "caught by type check", -11: "segfault", -9: "segfault"}
NOT_KILLED = {0: "survived", 5: "no tests", 33: "no tests", None: "not checked"}

#: how many mutants are tested at once unless ``--jobs`` says: one, on a machine shared with other work
JOBS = 1


@dataclass(frozen=True)
class Group:
    name: str
    ci: bool
    mutate: tuple[str, ...]
    sql: dict[str, tuple[str, ...]]
    tests: tuple[str, ...]


@dataclass
class Mutant:
    """A tested mutant: what was changed, and whether a test noticed."""

    name: str
    group: str
    module: str
    function: str  # module.function, module.Class.method, or module.sql for an SQL text
    status: str
    was: str
    now: str
    why: str | None = None  # the reason it is equivalent, when listed

    @property
    def killed(self) -> bool:
        return self.status in KILLED.values()


@dataclass
class Tally:
    mutants: int = 0
    killed: int = 0
    equivalent: int = 0
    names: list[str] = field(default_factory=list)

    def add(self, mutant: Mutant) -> None:
        self.mutants += 1
        self.killed += mutant.killed
        self.equivalent += mutant.why is not None and not mutant.killed

    @property
    def survived(self) -> int:
        return self.mutants - self.killed - self.equivalent

    @property
    def score(self) -> float:
        counted = self.mutants - self.equivalent
        return 100.0 * self.killed / counted if counted else 100.0


# -- configuration -----------------------------------------------------------------------------------------------------
def groups(config: dict) -> list[Group]:
    return [
        Group(
            g["name"],
            bool(g.get("ci")),
            tuple(g.get("mutate", ())),
            {path: tuple(tests) for path, tests in g.get("sql", {}).items()},
            tuple(g.get("tests", ())),
        )
        for g in config["group"]
    ]


def test_file(name: str) -> str:
    """The test file called ``name`` anywhere under tests/, relative to the project."""
    found = [p for p in (ROOT / "tests").rglob(name) if "__snapshots__" not in p.parts]
    if len(found) != 1:
        raise SystemExit(f"mutation: {name} names {len(found)} files under tests/ (scripts/mutation.toml): expected one")
    return found[0].relative_to(ROOT).as_posix()


def module_of(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def mutmut_targets(group: Group) -> list[tuple[str, list[str]]]:
    """(file, mutmut name patterns) for each file a group mutates."""
    out = []
    for entry in group.mutate:
        where, _, functions = entry.partition(":")
        paths = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob(where))
        if not paths:
            raise SystemExit(f"mutation: {where} matches no file (scripts/mutation.toml)")
        for path in paths:
            module = module_of(path)
            if not functions:
                out.append((path, [f"{module}.*"]))
                continue
            patterns = []
            for name in functions.split(","):
                owner, _, method = name.strip().rpartition(".")
                patterns.append(f"{module}.xǁ{owner}ǁ{method}__mutmut_*" if owner else f"{module}.x_{method}__mutmut_*")
            out.append((path, patterns))
    return out


def readable(mangled: str) -> str:
    """mutmut's ``x_name`` / ``xǁClassǁname`` as ``name`` / ``Class.name``."""
    if mangled.startswith("xǁ"):
        return mangled[2:].replace("ǁ", ".")
    return mangled.removeprefix("x_")


# -- mutmut --------------------------------------------------------------------------------------------------------------
def pyproject(files: Iterable[str], tests: Iterable[str]) -> str:
    """The project's pyproject.toml with mutmut's settings for this run."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    settings = {
        "source_paths": ["pxp_tui"],
        "also_copy": ["pxp_harness"],  # the tests' harness, beside the mutated package
        "only_mutate": sorted(set(files)),
        "pytest_add_cli_args_test_selection": list(dict.fromkeys(tests)),
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-m", "not slow"],
    }
    lines = ["", "[tool.mutmut]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def run_mutmut(chosen: Sequence[Group], work: Path, log: Path, jobs: int = JOBS) -> list[Mutant]:
    """mutmut over the groups' files in ``work``; when ``work`` holds an earlier run (``--again``), only the mutants
    that survived it are tested again (with the tests as they are now)."""
    targets = [(g, path, patterns) for g in chosen for path, patterns in mutmut_targets(g)]
    if not targets:
        return []
    tests = [test_file(name) for g in chosen if g.mutate for name in g.tests]
    again = (work / "mutants").is_dir()
    if not again:
        for name in ("pxp_tui", "pxp_harness", "tests"):
            (work / name).symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(pyproject([path for _, path, _ in targets], tests), encoding="utf-8")
    names = [m.name for m in _results(work, targets) if not m.killed] if again else [p for _, _, ps in targets for p in ps]
    files = len({path for _, path, _ in targets})
    print(f"mutation: mutmut on {files} files, {len(set(tests))} test files (log: {log})", flush=True)
    if names:
        _mutmut(names, work, log, jobs)
    if again:  # a file changed since is mutated anew: its new mutants are tested too
        unchecked = [m.name for m in _results(work, targets) if m.status == "not checked"]
        if unchecked:
            _mutmut(unchecked, work, log, jobs)
    return _results(work, targets)


#: lines of mutmut's output shown when it fails (its first run fails when a test fails without a mutant)
LOG_LINES = 30


def _mutmut(names: Sequence[str], work: Path, log: Path, jobs: int) -> None:
    with log.open("a") as out:
        done = subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names],
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        # the work folder may be a temporary one, gone once this exits: what mutmut said ends the message
        said = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        tail = "\n".join(said[-LOG_LINES:])
        raise SystemExit(f"mutation: mutmut failed (exit code {done.returncode}); the end of its output ({log}):\n{tail}")


def _results(work: Path, targets: Sequence[tuple[Group, str, list[str]]]) -> list[Mutant]:
    """The mutants of ``targets`` mutmut tested in ``work``, from its records."""
    found = []
    for group, path, patterns in targets:
        meta = json.loads((work / "mutants" / f"{path}.meta").read_text())
        functions = _functions(work / "mutants" / path)
        for key, code in meta["exit_code_by_key"].items():
            if not any(fnmatch.fnmatchcase(key, p) for p in patterns):
                continue
            mutant = key.rpartition(".")[2]
            mangled = mutant.rpartition("__mutmut_")[0]
            was, now = _diff(functions.get(f"{mangled}__mutmut_orig", ""), functions.get(mutant, ""))
            status = KILLED.get(code) or NOT_KILLED.get(code) or "suspicious"
            found.append(Mutant(key, group.name, module_of(path), f"{module_of(path)}.{readable(mangled)}", status, was, now))
    return found


def _functions(path: Path) -> dict[str, str]:
    """The source of every function in a file mutmut wrote, by name, its ``def`` line naming it ``function`` (so that
    a mutant of a default value shows, and the mangled names do not)."""
    source = path.read_text(encoding="utf-8")
    out = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in node.name:
            text = ast.get_source_segment(source, node) or ""
            out[node.name] = text.replace(f"def {node.name}(", "def function(", 1)
    return out


def _diff(before: str, after: str) -> tuple[str, str]:
    """The lines a mutant changed: (removed, added), each joined with `` ⏎ ``."""
    old, new = before.splitlines(), after.splitlines()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            removed += [line.strip() for line in old[i1:i2]]
            added += [line.strip() for line in new[j1:j2]]
    return " ⏎ ".join(removed), " ⏎ ".join(added)


# -- SQL -----------------------------------------------------------------------------------------------------------------
SCHEMA = (
    "import json; from pxp_tui.blackboard import Blackboard; b = Blackboard.memory(); "
    "print(json.dumps({t.name: [(c.name, c.type) for c in t.columns] for t in b.db.tables}))"
)


def run_sql(chosen: Sequence[Group], work: Path) -> list[Mutant]:
    """The SQL mutants of the groups' files, each tested in a copy of the project in ``work``; when ``work`` holds an
    earlier run (``--again``), a mutant it killed is not tested again."""
    files = [(g, path, tests) for g in chosen for path, tests in g.sql.items()]
    if not files:
        return []
    copy, record = work / "sql", work / "sql-results.json"
    earlier = {(r["name"], r["now"]): r["status"] for r in json.loads(record.read_text())} if record.exists() else {}
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir()
    shutil.copytree(ROOT / "pxp_tui", copy / "pxp_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "pxp_harness", copy / "pxp_harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    schema = json.loads(
        subprocess.run([sys.executable, "-c", SCHEMA], cwd=copy, capture_output=True, text=True, check=True).stdout
    )
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import pytest  # noqa: F401  # once here, for every forked run

    found = []
    for group, path, test_names in files:
        tests = [test_file(name) for name in test_names]
        target = copy / path
        original = target.read_text(encoding="utf-8")
        mutants = sql_mutants.mutants(ROOT / path, path, schema)
        todo = [m for m in mutants if earlier.get((m.name, m.now)) not in KILLED.values()]
        retest = {m.name for m in todo}
        print(f"mutation: {len(mutants)} SQL mutants of {path} ({len(todo)} to test), {len(tests)} test files", flush=True)
        limit = 3600
        if todo:
            code, cpu = sql_mutants.run_tests(copy, tests, limit)
            if code != 0:
                raise SystemExit(
                    f"mutation: the tests of {path}'s SQL fail with no mutant (pytest exit code {code}): {' '.join(tests)}"
                )
            limit = max(60, math.ceil(10 * cpu))
        for mutant in mutants:
            status = earlier.get((mutant.name, mutant.now))
            if mutant.name in retest:
                target.write_text(mutant.source, encoding="utf-8")
                try:
                    code, _ = sql_mutants.run_tests(copy, tests, limit)
                finally:
                    target.write_text(original, encoding="utf-8")
                status = SQL_STATUS.get(code, "suspicious")
            found.append(
                Mutant(mutant.name, group.name, mutant.module, f"{mutant.module}.sql", str(status), mutant.was, mutant.now)
            )
        record.write_text(json.dumps([{"name": m.name, "now": m.now, "status": m.status} for m in found], indent=0))
    return found


#: pytest's exit code for an SQL mutant, as the score counts it
SQL_STATUS = {0: "survived", 1: "killed", 3: "killed", 5: "no tests", sql_mutants.TIMEOUT: "timeout"}


# -- scoring ---------------------------------------------------------------------------------------------------------------
def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def explain(found: Sequence[Mutant], listed: Sequence[dict]) -> list[dict]:
    """Give each surviving mutant its reason from the list of equivalent mutants; the entries that matched none."""
    unused = []
    for entry in listed:
        matched = [
            m for m in found if m.function == entry["function"] and _same(m.was, entry["was"]) and _same(m.now, entry["now"])
        ]
        for mutant in matched:
            mutant.why = entry["why"]
        if not matched:
            unused.append(entry)
    return unused


def tallies(found: Sequence[Mutant], key: str) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for mutant in found:
        out.setdefault(getattr(mutant, key), Tally()).add(mutant)
    return out


def report(found: Sequence[Mutant], chosen: Sequence[Group], targets: dict[str, float], whole: bool) -> tuple[str, list[str]]:
    """The scores as Markdown, and the targets missed."""
    modules = tallies(found, "module")
    by_group = tallies(found, "group")
    lines = [
        "| module | mutants | killed | equivalent | survived | score |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| `{name}` | {t.mutants} | {t.killed} | {t.equivalent} | {t.survived} | {t.score:.1f}% |"
            for name, t in sorted(modules.items())
        ),
        "",
        "| group | mutants | killed | equivalent | survived | score | target |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    missed = []
    rows = [(g.name, by_group.get(g.name, Tally())) for g in chosen]
    if whole:
        total = Tally()
        for mutant in found:
            total.add(mutant)
        rows.append(("all", total))
    for name, t in rows:
        target = targets.get(name)
        lines.append(
            f"| {name} | {t.mutants} | {t.killed} | {t.equivalent} | {t.survived} | {t.score:.1f}% | "
            + (f"{target:g}% |" if target is not None else "|")
        )
        if target is not None and t.score < target:
            missed.append(f"{name}: {t.score:.1f}% < {target:g}%")
    return "\n".join(lines), missed


def load_docs_section():  # benchmarks/docs_section.py, which writes the benchmarks' blocks
    spec = importlib.util.spec_from_file_location("docs_section", ROOT / "benchmarks" / "docs_section.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ci", action="store_true", help="only the groups marked ci in scripts/mutation.toml (what .ci/run checks)"
    )
    parser.add_argument("--group", action="append", metavar="NAME", help="only this group (repeatable)")
    parser.add_argument("--docs", action="store_true", help="write the scores into CONTRIBUTING.md (every group only)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=JOBS,
        metavar="N",
        help=f"test N Python mutants at once (default {JOBS}: the machine is shared)",
    )
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (new, kept after) instead of a temporary folder")
    parser.add_argument(
        "--again", metavar="DIR", help="in DIR, kept by an earlier --keep, test again only the Python mutants that survived"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        raise SystemExit(f"mutation: --jobs must be at least 1, got {args.jobs}")
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    every = groups(config)
    chosen = [g for g in every if (not args.ci or g.ci) and (not args.group or g.name in args.group)]
    unknown = set(args.group or ()) - {g.name for g in every}
    if unknown or not chosen:
        raise SystemExit(f"mutation: no such group: {', '.join(sorted(unknown))}; the groups: {', '.join(g.name for g in every)}")
    whole = len(chosen) == len(every)
    if args.docs and not whole:
        raise SystemExit("mutation: --docs writes the scores of every group: leave out --ci and --group")
    if SHARED_DATA.is_dir():
        os.environ.setdefault("PXP_SHARED_DATA", str(SHARED_DATA))  # the copy's tests look for it beside the copy
    started = time.process_time(), _children_cpu(), time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.again:
            work = Path(args.again).resolve()
        elif args.keep:
            work = Path(args.keep).resolve()
            work.mkdir(parents=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pxp-mutation-")))
        found = run_mutmut(chosen, work, work / "mutmut.log", args.jobs) + run_sql(chosen, work)
    listed = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8")).get("equivalent", [])
    in_scope = {m.module for m in found}
    unused = [
        e
        for e in explain(found, listed)
        if e["function"].rsplit(".", 1)[0] in in_scope or e["function"] in {m.function for m in found}
    ]
    cpu = time.process_time() - started[0] + _children_cpu() - started[1]
    body, missed = report(found, chosen, config["targets"], whole)
    print(body)
    survivors = [m for m in found if not m.killed and m.why is None]
    if survivors:
        print(
            f"\n{len(survivors)} surviving mutants, neither killed nor listed as equivalent in {EQUIVALENTS.relative_to(ROOT)}:"
        )
        for m in survivors:
            print(f"- {m.name} ({m.status}) in {m.function}:\n    was: {m.was}\n    now: {m.now}")
    for entry in unused:
        print(
            f"mutation: listed as equivalent but no such survivor (killed now, or the code changed): {entry['function']}: {entry['now']}"
        )
    print(f"\nmutation: {len(found)} mutants, {cpu / 60:.1f} CPU-minutes, {(time.monotonic() - started[2]) / 60:.1f} minutes")
    if args.docs:
        note = (
            "Killed: a test failed. Equivalent: listed in `scripts/mutation_equivalents.toml` with why it cannot change "
            "behaviour, left out of the score. Score: killed / (mutants - equivalent)."
        )
        load_docs_section().write_section("mutation", "Mutation scores", f"{note}\n\n{body}", page=PAGE)
    if missed:
        print("mutation: below target: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
