"""Reading a dataset CSV with line numbers, and collecting every problem before anything is stored."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SPLITS = ("train", "val", "test")


class DatasetProblems(ValueError):
    """A dataset file that cannot be imported: every problem found, each with its line number."""

    def __init__(self, source: str, problems: Sequence[tuple[int, str]]):
        self.source = source
        self.problems = list(problems)
        listed = "; ".join(f"line {line}: {text}" if line else text for line, text in self.problems)
        count = len(self.problems)
        super().__init__(f"{source}: nothing imported, {count} problem{'s' * (count != 1)}: {listed}")


@dataclass
class Table:
    """A CSV file's header and rows, each row with the line it starts on."""

    path: Path
    header: list[str]
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)

    def fail(self) -> None:
        """Raise :class:`DatasetProblems` if any problem was noted."""
        if self.problems:
            raise DatasetProblems(str(self.path), sorted(self.problems, key=lambda p: p[0]))


def read_table(path: Path) -> Table:
    """Read ``path`` (UTF-8, a header line); rows with the wrong number of cells, or none, are problems."""
    if not path.is_file():
        raise DatasetProblems(str(path), [(0, "no such file")])
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetProblems(str(path), [(0, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DatasetProblems(str(path), [(1, "the file is empty (a header line is needed)")]) from None
    except csv.Error as exc:
        raise DatasetProblems(str(path), [(1, f"not CSV ({exc})")]) from None
    table = Table(path, header)
    if len(set(header)) != len(header):
        twice = sorted({h for h in header if header.count(h) > 1})
        table.problems.append((1, f"column {twice[0]!r} appears more than once in the header"))
    empty: list[int] = []
    line = reader.line_num
    while True:
        start = line + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            table.problems.append((start, f"not CSV ({exc})"))
            break
        line = reader.line_num
        if not any(c.strip() for c in cells):
            empty.append(start)
            continue
        table.problems.extend((n, "empty row") for n in empty)
        empty = []
        if len(cells) != len(header):
            table.problems.append((start, f"{len(cells)} cells, but the header has {len(header)} columns"))
            continue
        table.rows.append((start, {h: c.strip() for h, c in zip(header, cells)}))
    if not table.rows and not table.problems:
        table.problems.append((2, "no rows after the header"))
    return table


def choose_format(table: Table, formats: Mapping[str, Sequence[str]]) -> str:
    """The format (name -> required columns) the header is closest to; its missing columns are problems."""
    present = set(table.header)
    # fewest missing columns, then most columns recognised; ties: the first listed
    name = max(formats, key=lambda f: (-len(set(formats[f]) - present), len(present & set(formats[f]))))
    missing = [c for c in formats[name] if c not in present]
    for column in missing:
        table.problems.append((1, f"missing column {column!r} (the {name} format needs {', '.join(formats[name])})"))
    if missing:
        table.fail()
    return name


def split_of(table: Table, line: int, value: str) -> str:
    """A row's ``split`` cell (empty means train); anything else but train, val, test is a problem."""
    split = value.strip().lower() or "train"
    if split not in SPLITS:
        table.problems.append((line, f"split {value!r} is not one of {', '.join(SPLITS)}"))
    return split


def unique_key(table: Table, seen: dict[str, int], line: int, key: str, what: str = "key") -> None:
    """Note a problem if ``key`` is empty or was already used on an earlier line."""
    if not key:
        table.problems.append((line, f"empty {what}"))
    elif key in seen:
        table.problems.append((line, f"duplicate {what} {key!r} (first on line {seen[key]})"))
    else:
        seen[key] = line
