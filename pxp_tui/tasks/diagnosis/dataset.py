"""Diagnosis datasets: any CSV of case descriptions with a label column; the labels are read from the data.

Columns are found by name (case and spacing ignored):

- the label: ``label``, ``diagnosis``, ``disease``, ``condition``, ``prognosis`` or ``class`` (required);
- the description: ``description``, ``text``, ``symptoms``, ``case``, ``presentation`` or ``input``; a
  table without one (one symptom per column, say) has its other cells joined into the description:
  ``Symptom_1``, ``Symptom_2``, ... (columns numbered alike) by their values, any other column as
  ``name: value``;
- optional: ``key`` or ``id`` (default ``case-001``, ... in file order), ``split``, and the reference
  explanation the human proxy answers with, ``explanation``, ``rationale`` or ``justification`` (default:
  "The recorded diagnosis of this case is <label>.").

The label set is every distinct label of the file (spelt as first written; case and spacing do not make
another label), at least two; it is stored with each instance (``meta["labels"]``, sorted), and the
prompts offer it. An empty label or description, or a repeated key, is a problem.
"""

from __future__ import annotations

import re
from pathlib import Path

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import ImportProgress, Table, open_table, split_of, unique_key

LABEL = ("label", "diagnosis", "disease", "condition", "prognosis", "class")
TEXT = ("description", "text", "symptoms", "case", "presentation", "input")
KEY = ("key", "id")
SPLIT = ("split",)
EXPLANATION = ("explanation", "rationale", "justification")
#: the longest label kept (a longer one is a problem: a description in the wrong column)
MAX_LABEL = 120


def canonical(text: str) -> str:
    """A label as compared: case-folded, spaces and underscores collapsed."""
    return " ".join(text.replace("_", " ").casefold().split())


def _column(header: list[str], names: tuple[str, ...]) -> str | None:
    by_name = {canonical(h): h for h in header}
    return next((by_name[n] for n in names if n in by_name), None)


def _stem(column: str) -> str | None:
    """``Symptom`` for ``Symptom_3`` or ``symptom 12``: a column of a numbered series."""
    found = re.fullmatch(r"(.*?)[\s_-]*\d+", column.strip())
    return canonical(found.group(1)) if found and found.group(1).strip() else None


def read(path: Path, *, encoding: str = "utf-8", progress: ImportProgress | None = None) -> list[DatasetRow]:
    """The rows of a diagnosis CSV; :class:`~pxp_tui.tasks.csvdata.DatasetProblemsError` listing every problem."""
    with open_table(path, encoding=encoding, progress=progress) as table:
        return _rows(table)


def _rows(table: Table) -> list[DatasetRow]:
    header = table.header
    label_column = _column(header, LABEL)
    if label_column is None:
        table.problems.append((1, f"no label column (one named {', '.join(LABEL)})"))
        table.fail()
    assert label_column is not None
    text_column = _column(header, TEXT)
    key_column, split_column, explanation_column = (_column(header, names) for names in (KEY, SPLIT, EXPLANATION))
    known = {c for c in (label_column, text_column, key_column, split_column, explanation_column) if c}
    rest = [h for h in header if h not in known]
    if text_column is None and not rest:
        table.problems.append((1, f"no description column (one named {', '.join(TEXT)}, or other columns to join)"))
        table.fail()
    numbered = {h for h in rest if _stem(h) and sum(_stem(o) == _stem(h) for o in rest) > 1}
    spelt: dict[str, str] = {}
    keys: dict[str, int] = {}
    found: list[tuple[str, str, str, str, str]] = []
    for number, (line, cells) in enumerate(table.rows(), start=1):
        label = " ".join(cells[label_column].split())
        if not label:
            table.problems.append((line, f"empty {label_column}"))
        elif len(label) > MAX_LABEL:
            table.problems.append((line, f"a {label_column} of {len(label)} characters (at most {MAX_LABEL})"))
        else:
            label = spelt.setdefault(canonical(label), label)
        if text_column is not None:
            text = cells[text_column]
        else:
            parts = [cells[h] if h in numbered else f"{h}: {cells[h]}" for h in rest if cells[h]]
            text = ", ".join(parts) if all(h in numbered for h in rest) else "; ".join(parts)
        if not text:
            table.problems.append((line, "empty description"))
        key = cells[key_column] if key_column else f"case-{number:03d}"
        unique_key(table, keys, line, key)
        split = split_of(table, line, cells[split_column]) if split_column else "train"
        explanation = (
            cells[explanation_column] if explanation_column else ""
        ) or f"The recorded diagnosis of this case is {label}."
        found.append((key, split, text, label, explanation))
    if len(spelt) == 1 and not table.problems:
        table.problems.append(
            (0, f"every row has the same {label_column} ({next(iter(spelt.values()))!r}): a diagnosis needs two labels or more")
        )
    table.fail()
    labels = sorted(spelt.values(), key=canonical)
    return [
        DatasetRow(key, split, text, label, explanation, meta={"labels": labels})
        for key, split, text, label, explanation in found
    ]
