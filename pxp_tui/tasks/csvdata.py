"""Reading a dataset CSV with line numbers, and collecting every problem before anything is stored.

The file is streamed (one row at a time), so a large file is never held as text. UTF-8 is read with
or without a byte-order mark; other encodings are named (``cp1252``, what Excel writes as plain CSV on
Windows); CRLF, LF and CR line ends all work; a header with semicolons or tabs and no comma (Excel in
many European locales) sets the separator.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

SPLITS = ("train", "val", "test")
#: the split of a dataset's few-shot examples (``pxp import ... --few-shot``): in no session, only in prompts
SHOTS = "shots"

#: the longest cell read, in characters: longer ones are nearly always a quote left open
MAX_CELL = 1 << 20
#: ``progress(phase, done, total)``: how far a long import has got (the CLI draws a bar)
ImportProgress = Callable[[str, int, int], None]
#: problems listed in the one-line error (the count says how many more there are)
SHOWN_PROBLEMS = 20
#: rows between two calls of a progress callback
PROGRESS_EVERY = 250

_UTF8_BOM = codecs.BOM_UTF8
_NOT_CSV = {
    b"PK\x03\x04": 'an Excel workbook (or another zip file), not CSV text: save it as "CSV UTF-8"',
    b"\xd0\xcf\x11\xe0": 'an old Excel workbook (.xls), not CSV text: save it as "CSV UTF-8"',
}


class DatasetProblemsError(ValueError):
    """A dataset file that cannot be imported: every problem found, each with its line number."""

    def __init__(self, source: str, problems: Sequence[tuple[int, str]]) -> None:
        self.source = source
        self.problems = list(problems)
        shown = self.problems[:SHOWN_PROBLEMS]
        listed = "; ".join(f"line {line}: {text}" if line else text for line, text in shown)
        count = len(self.problems)
        if count > len(shown):
            listed += f"; and {count - len(shown):,} more"
        super().__init__(f"{source}: nothing imported, {count:,} problem{'s' * (count != 1)}: {listed}")


@dataclass
class Table:
    """A CSV file's header, its rows streamed by :meth:`rows`, and the problems noted so far."""

    path: Path
    header: list[str]
    problems: list[tuple[int, str]] = field(default_factory=list)
    _reader: Iterator[list[str]] = field(default=iter(()), repr=False)
    _raw: IO[bytes] | None = field(default=None, repr=False)
    _codec: str = "utf-8"
    _progress: ImportProgress | None = field(default=None, repr=False)

    def fail(self) -> None:
        """Raise :class:`DatasetProblemsError` if any problem was noted."""
        if self.problems:
            raise DatasetProblemsError(str(self.path), sorted(self.problems, key=lambda p: p[0]))

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        """Each row with the line it starts on; rows with the wrong number of cells (or none) are problems.

        Blank lines at the end of the file are ignored; anywhere else they are problems.
        """
        reader, header = self._reader, self.header
        size = self.path.stat().st_size
        empty: list[int] = []
        line = getattr(reader, "line_num", 1)
        count = 0
        while True:
            start = line + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                self.problems.append((start, _csv_problem(exc)))
                break
            except UnicodeDecodeError:
                self.problems.append(_decode_problem(self.path, self._codec))
                break
            line = reader.line_num  # type: ignore[attr-defined]
            if not any(c.strip() for c in cells):
                empty.append(start)
                continue
            self.problems.extend((n, "empty row") for n in empty)
            empty = []
            count += 1
            if self._progress is not None and count % PROGRESS_EVERY == 0 and self._raw is not None:
                self._progress("checking", self._raw.tell(), size)
            if len(cells) != len(header):
                self.problems.append((start, f"{len(cells)} cells, but the header has {len(header)} columns"))
                continue
            if any("\x00" in c for c in cells):
                self.problems.append((start, "a NUL byte: not text (a binary file, or text in another encoding?)"))
                continue
            yield start, {h: c.strip() for h, c in zip(header, cells, strict=True)}
        if self._progress is not None:
            self._progress("checking", size, size)
        if not count and not self.problems:
            self.problems.append((2, "no rows after the header"))


@contextmanager
def open_table(path: Path, *, encoding: str = "utf-8", progress: ImportProgress | None = None) -> Iterator[Table]:
    """The CSV at ``path`` with its header read, its rows streamed while the ``with`` block lasts.

    A file that cannot be read as CSV text raises :class:`DatasetProblemsError` saying why.
    """
    if path.is_dir():
        raise DatasetProblemsError(str(path), [(0, "a folder, not a CSV file")])
    if not path.is_file():
        raise DatasetProblemsError(str(path), [(0, "no such file")])
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise DatasetProblemsError(str(path), [(0, f"cannot be read ({exc.strerror or exc})")]) from None
    limit = csv.field_size_limit()
    with raw:
        head = raw.peek(4)[:4]
        codec = _codec(head, encoding)
        for magic, why in _NOT_CSV.items():
            if head.startswith(magic):
                raise DatasetProblemsError(str(path), [(0, why)])
        text = io.TextIOWrapper(raw, encoding=codec, newline="")
        csv.field_size_limit(MAX_CELL)
        try:
            yield _header(path, text, raw, codec, progress)
        finally:
            csv.field_size_limit(limit)
            text.detach()


def _codec(head: bytes, encoding: str) -> str:
    if head.startswith(_UTF8_BOM):
        return "utf-8-sig"  # the mark says UTF-8, whatever --encoding says
    name = codecs.lookup(encoding).name
    return "utf-8-sig" if name == "utf-8" else name


def _header(path: Path, text: io.TextIOWrapper, raw: IO[bytes], codec: str, progress: ImportProgress | None) -> Table:
    try:
        first = text.readline()
    except UnicodeDecodeError:
        raise DatasetProblemsError(str(path), [_decode_problem(path, codec)]) from None
    if not first.strip():
        raise DatasetProblemsError(str(path), [(1, "the file is empty (a header line is needed)")])
    separator = ","
    if "," not in first and (";" in first or "\t" in first):
        separator = ";" if first.count(";") >= first.count("\t") else "\t"
    # strict: a quote never closed is an error at its line, not a last cell swallowing the rest of the file
    reader = csv.reader(itertools.chain([first], text), delimiter=separator, strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise DatasetProblemsError(str(path), [(1, _csv_problem(exc))]) from None
    except UnicodeDecodeError:
        raise DatasetProblemsError(str(path), [_decode_problem(path, codec)]) from None
    table = Table(path, header, _reader=reader, _raw=raw, _codec=codec, _progress=progress)
    if len(set(header)) != len(header):
        twice = sorted({h for h in header if header.count(h) > 1})
        table.problems.append((1, f"column {twice[0]!r} appears more than once in the header"))
    return table


def _csv_problem(exc: csv.Error) -> str:
    if "field larger than field limit" in str(exc):
        return f"a cell longer than {MAX_CELL:,} characters (is a quote left open on this line?)"
    if "unexpected end of data" in str(exc):
        return "a quote opened on this line is never closed"
    return f"not CSV ({exc})"


def _decode_problem(path: Path, codec: str) -> tuple[int, str]:
    """Where the first byte ``codec`` cannot read is (line, what to do); looked for only once one is met."""
    name = "UTF-8" if codec.startswith("utf-8") else codec
    advice = (
        "save the file as CSV UTF-8, or name its encoding, e.g. --encoding cp1252 (Excel's CSV on Windows) or latin-1"
        if name == "UTF-8"
        else "name the file's encoding with --encoding, or save it as CSV UTF-8"
    )
    with path.open("rb") as raw:
        head = raw.read(2)
        if name == "UTF-8" and head in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return 1, "UTF-16 text: pass --encoding utf-16, or save the file as CSV UTF-8"
        raw.seek(0)
        line = 1
        for chunk in raw:  # split at b"\n", which no byte of UTF-8 or of a one-byte encoding contains
            try:
                chunk.decode(codec)
            except UnicodeDecodeError as exc:
                before = chunk[: exc.start]
                line += before.count(b"\r") - before.count(b"\r\n")  # lines ended by a lone CR
                column = exc.start - max(before.rfind(b"\r"), -1)
                return line, f"byte 0x{chunk[exc.start]:02X} (column {column}) is not {name} text: {advice}"
            line += 1 + chunk.count(b"\r") - chunk.count(b"\r\n")
    return 0, f"not {name} text: {advice}"


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
