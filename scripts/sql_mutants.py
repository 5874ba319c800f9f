"""Mutants of the SQL inside a Python file's string literals, and a runner that tests each one.

A Python mutation tool changes Python, not the SQL a string holds, yet the blackboard's SQL computes the
intelligibility classes, the rounds and the evaluations a report prints. Each mutant here changes one thing
in one SQL text:

- ``IN`` lists: one item left out of ``IN ('A', 'B')``, and ``IN`` made ``NOT IN`` (or back);
- comparisons: ``=`` and ``<>`` swapped, ``<`` with ``<=`` and ``>`` with ``>=``; ``IS NULL`` with ``IS NOT NULL``;
- ``AND`` and ``OR`` swapped;
- column names: ``alias.column`` made another column of the same table and type (from a fresh blackboard's
  schema); the agents' names ``human`` and ``machine`` (in column names and values) swapped; ``MIN``
  with ``MAX`` and ``ASC`` with ``DESC``.

A literal holds SQL when it has an upper-case SQL keyword or compares a qualified column; docstrings are left
alone. Each mutant is tested as mutmut tests its own: in a forked process (one at a time), with pytest run on
the file's tests in a copy of the package where that file is mutated, the first failure ending the run.
"""

from __future__ import annotations

import ast
import io
import os
import re
import resource
import signal
import sys
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: a literal holds SQL when it matches this (upper-case keywords only: English text has none)
SQL_LIKE = re.compile(
    r"\b(?:SELECT|WHERE|JOIN|CASE|WHEN|UPDATE|INSERT|TRIGGER|AND|OR|IN|IS|NULL|MIN|MAX|ORDER BY|GROUP BY)\b"
    r"|[\w}]\.\w+\s*(?:=|<>|<=|>=|<|>|!=)"
)
#: a literal that is only one of these words is a piece of SQL too (an agent, an aggregate)
SQL_WORDS = {"human", "machine", "MIN", "MAX"}
SWAPS = {"human": "machine", "machine": "human", "MIN": "MAX", "MAX": "MIN", "ASC": "DESC", "DESC": "ASC"}
COMPARISONS = {"=": "<>", "==": "<>", "<>": "=", "!=": "=", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}


@dataclass(frozen=True)
class SqlMutant:
    """One change to one SQL text of a file."""

    path: str  # the file, relative to the project
    number: int  # 1, 2, ... within the file
    line: int
    kind: str
    was: str  # the changed line before ...
    now: str  # ... and after
    source: str  # the whole mutated file

    @property
    def module(self) -> str:
        return self.path.removesuffix(".py").replace("/", ".")

    @property
    def name(self) -> str:
        return f"{self.module}.sql__{self.number}"


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """(line, column) where each docstring starts."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add((first.lineno, first.col_offset))
    return found


def _literals(source: str) -> Iterator[tuple[int, str, bool]]:
    """(offset in ``source``, text, whether it is an f-string) of each string literal that is not a docstring."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    skip = _docstrings(ast.parse(source))
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    middle = getattr(tokenize, "FSTRING_MIDDLE", None)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.start in skip:
            continue
        offset = starts[token.start[0] - 1] + token.start[1]
        if token.type == tokenize.STRING:
            prefix = re.match(r"[A-Za-z]*", token.string)
            yield offset, token.string, "f" in (prefix.group(0).lower() if prefix else "")
        elif middle is not None and token.type == middle:  # Python 3.12+: the text between an f-string's fields
            yield offset, token.string, False
        elif fstring_start is not None and token.type == fstring_start:
            continue


def _masked(text: str, fstring: bool) -> str:
    """``text`` with what no operator mutation may touch blanked out: SQL's quoted values and an f-string's fields."""
    chars = list(text)
    depth, quote = 0, False
    i = 0
    while i < len(chars):
        c = text[i]
        if fstring and c in "{}" and not quote:
            if depth == 0 and text[i : i + 2] in ("{{", "}}"):
                chars[i] = chars[i + 1] = " "
                i += 2
                continue
            depth += 1 if c == "{" else -1
            chars[i] = " "
        elif depth:
            chars[i] = " "
        elif c == "'" and i > 0:
            quote = not quote
            chars[i] = " "
        elif quote:
            chars[i] = " "
        i += 1
    return "".join(chars)


def _in_lists(text: str, masked: str) -> Iterator[tuple[int, int, str, str]]:
    for found in re.finditer(r"\b(NOT\s+)?IN\s*\(", masked):
        start = found.end()
        depth, end = 1, start
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        inner = text[start : end - 1]
        negated = found.group(1)
        yield found.start(), found.end(), "IN (" if negated else "NOT IN (", "IN list"
        if inner.lstrip().upper().startswith("SELECT") or "{" in inner:
            continue
        items = [item.strip() for item in inner.split(",")]
        if len(items) < 2:
            continue
        for dropped in range(len(items)):
            kept = ", ".join(item for k, item in enumerate(items) if k != dropped)
            yield start, end - 1, kept, "IN list"


def _comparisons(text: str, masked: str) -> Iterator[tuple[int, int, str, str]]:
    for found in re.finditer(r"<>|!=|<=|>=|==|=|<|>", masked):
        op, start = found.group(0), found.start()
        if masked[start - 1 : start] in ("-", "|") or masked[found.end() : found.end() + 1] == ">":
            continue  # SQLite's -> and ->> JSON operators, ||
        if op == "=" and not masked[:start].strip():
            continue  # ``f"{column} = ..."``: an assignment in SET
        if op == "=" and re.search(r"(?:\bSET\b|,)\s*\(?[\w., ]*\)?\s*$", masked[:start]) and "WHERE" not in masked[:start]:
            continue  # an assignment in SET, not a comparison
        yield start, found.end(), COMPARISONS[op], "comparison"
    for found in re.finditer(r"\bIS\s+NOT\s+NULL\b|\bIS\s+NULL\b", masked):
        now = "IS NULL" if "NOT" in found.group(0) else "IS NOT NULL"
        yield found.start(), found.end(), now, "comparison"


def _connectives(masked: str) -> Iterator[tuple[int, int, str, str]]:
    for found in re.finditer(r"\b(AND|OR)\b(?!\s+(?:REPLACE|IGNORE|ABORT|ROLLBACK|FAIL)\b)", masked):
        yield found.start(), found.end(), "OR" if found.group(1) == "AND" else "AND", "AND/OR"


def _columns(masked: str, schema: Schema, aliases: Mapping[str, set[str]]) -> Iterator[tuple[int, int, str, str]]:
    for found in re.finditer(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b", masked):
        other = sibling(schema, aliases.get(found.group(1)), found.group(2))
        if other:
            yield found.start(2), found.end(2), other, "column"


def _words(text: str) -> Iterator[tuple[int, int, str, str]]:
    for found in re.finditer(r"(?<![\w$.])(human|machine)(?=_|\b)|\b(MIN|MAX)\b|\b(ASC|DESC)\b", text):
        word = found.group(0)
        yield found.start(), found.end(), SWAPS[word], "column" if word in ("human", "machine") else "aggregate"


#: table -> its columns' (name, declared type), in order
Schema = Mapping[str, Sequence[tuple[str, str]]]

_NOT_ALIASES = {"WHERE", "JOIN", "ON", "LEFT", "INNER", "CROSS", "GROUP", "ORDER", "USING", "WINDOW", "LIMIT", "UNION"}


def aliases(texts: Sequence[str]) -> dict[str, set[str]]:
    """Alias -> the tables it names in these SQL texts (``FROM messages m``, ``JOIN runs AS u``; a trigger's NEW and
    OLD name its table)."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in re.finditer(r"\b(?:FROM|JOIN)\s+(\w+)(?:\s+AS)?\s+([A-Za-z_]\w*)", text):
            if match.group(2).upper() not in _NOT_ALIASES:
                found.setdefault(match.group(2), set()).add(match.group(1))
        for match in re.finditer(r"\b(?:INSERT|UPDATE|DELETE)\s+ON\s+(\w+)", text):
            for row in ("NEW", "OLD"):
                found.setdefault(row, set()).add(match.group(1))
    return found


def sibling(schema: Schema, tables: set[str] | None, column: str) -> str | None:
    """The column ``column`` is changed into: the next column of the same type in its table (in each of ``tables``,
    or of every table that has it where the alias is not known), the same in all of them; None if there is none."""
    options = []
    for table, columns in schema.items():
        kinds = dict(columns)
        if column not in kinds or (tables and table not in tables):
            continue
        index = [c for c, _ in columns].index(column)
        options.append([c for c, k in [*columns[index + 1 :], *columns[:index]] if k == kinds[column]])
    if not options:
        return None
    common = set(options[0]).intersection(*options[1:])
    return next((c for c in options[0] if c in common), None)


def mutants(path: Path, relative: str, schema: Schema) -> list[SqlMutant]:
    """Every SQL mutant of the file at ``path`` (``relative`` to the project), in source order; ``schema``: the
    blackboard's tables, for the column mutants."""
    source = path.read_text(encoding="utf-8")
    literals = []
    for offset, text, fstring in _literals(source):
        body = re.sub(r"^[A-Za-z]*", "", text)
        if SQL_LIKE.search(body) or body.strip("'\"") in SQL_WORDS:
            literals.append((offset, text, fstring))
    named = aliases([text for _, text, _ in literals])
    found: list[SqlMutant] = []
    for offset, text, fstring in literals:
        masked = _masked(text, fstring)
        sites = [
            *_in_lists(text, masked),
            *_comparisons(text, masked),
            *_connectives(masked),
            *_columns(masked, schema, named),
            *_words(text),
        ]
        for start, end, replacement, kind in sorted(sites, key=lambda s: (s[0], s[1], s[2])):
            begin, stop = offset + start, offset + end
            mutated = source[:begin] + replacement + source[stop:]
            line = source.count("\n", 0, begin) + 1
            found.append(
                SqlMutant(
                    relative,
                    len(found) + 1,
                    line,
                    kind,
                    _line(source, begin, stop),
                    _line(mutated, begin, begin + len(replacement)),
                    mutated,
                )
            )
    return found


def _line(source: str, begin: int, end: int) -> str:
    """The whole physical line(s) holding ``source[begin:end]``, stripped."""
    first = source.rfind("\n", 0, begin) + 1
    last = source.find("\n", end)
    return " ".join(part.strip() for part in source[first : len(source) if last < 0 else last].splitlines())


# -- running -----------------------------------------------------------------------------------------------------------
#: exit codes of a tested mutant: pytest's, and these for a run stopped at its limits
TIMEOUT = -1


def run_tests(work: Path, tests: Sequence[str], cpu_seconds: int) -> tuple[int, float]:
    """pytest on ``tests`` in ``work`` (a copy of the project), in a forked process: (exit code, CPU seconds). The run
    stops at its first failure, and at ``cpu_seconds`` of CPU or eight times that of wall clock (TIMEOUT)."""
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 3
        try:
            os.chdir(work)
            sys.path.insert(0, str(work))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
            signal.alarm(8 * cpu_seconds)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            import pytest

            code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", *tests]))
        finally:
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if os.WIFSIGNALED(status):
        return TIMEOUT, cpu
    return os.WEXITSTATUS(status), cpu
