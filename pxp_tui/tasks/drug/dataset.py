"""DRUG dataset files: the papers' CSVs and this project's own format, SMILES checked with RDKit.

- the papers' format: ``output,input,explanation`` (the reactants, the target, the reasoning);
  further columns (``matchOK``) are kept with the instance. Rows are keyed ``mol-001``,
  ``mol-002``... in file order.
- the project's format (the bundled demo's): ``key,name,input,output,explanation`` and an optional
  ``split``; ``name`` may be empty.

A target that appears twice (same canonical SMILES) is a duplicate, as is a repeated key.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import ImportProgress, Table, choose_format, open_table, split_of, unique_key
from pxp_tui.tasks.drug import chem, limits, reader

FORMATS = {
    "pxp DRUG": ("key", "input", "output", "explanation"),
    "papers' DRUG": ("output", "input", "explanation"),
}


def read(path: Path, *, encoding: str = "utf-8", progress: ImportProgress | None = None) -> list[DatasetRow]:
    """The rows of a DRUG CSV; :class:`~pxp_tui.tasks.csvdata.DatasetProblemsError` listing every problem."""
    with open_table(path, encoding=encoding, progress=progress) as table:
        return _rows(table)


def _rows(table: Table) -> list[DatasetRow]:
    papers = choose_format(table, FORMATS) == "papers' DRUG"
    rows: list[DatasetRow] = []
    keys: dict[str, int] = {}
    targets: dict[str, int] = {}
    for number, (line, cells) in enumerate(_read_ahead(table.rows()), start=1):
        if papers:
            key, split = f"mol-{number:03d}", "train"
            meta = {k: v for k, v in cells.items() if k not in FORMATS["papers' DRUG"] and v}
        else:
            key, split = cells["key"], split_of(table, line, cells.get("split", ""))
            meta = {"name": cells["name"]} if cells.get("name") else {}
        unique_key(table, keys, line, key)
        target = _smiles(table, line, "input", cells["input"], single=True)
        _smiles(table, line, "output", cells["output"])
        if target:
            unique_key(table, targets, line, target, "target")
        if not cells["explanation"]:
            table.problems.append((line, "empty explanation"))
        rows.append(DatasetRow(key, split, cells["input"], cells["output"], cells["explanation"], meta=meta))
    table.fail()
    return rows


def _read_ahead(rows: Iterator[tuple[int, dict[str, str]]], chunk: int = 512) -> Iterator[tuple[int, dict[str, str]]]:
    """``rows``, their molecules read by RDKit a chunk at a time (one call to its worker, not one per molecule)."""
    while batch := list(islice(rows, chunk)):
        reader.read_all(part.strip() for _, cells in batch for column in ("input", "output") for part in cells[column].split("."))
        yield from batch


def _smiles(table: Table, line: int, column: str, value: str, *, single: bool = False) -> str | None:
    """The canonical form of a cell's SMILES; a problem noted if it is empty or RDKit cannot read it."""
    if not value:
        table.problems.append((line, f"empty {column}"))
        return None
    too_large = limits.problem(value)
    if too_large:
        table.problems.append((line, f"SMILES too large in {column}: {too_large}"))
        return None
    bad = chem.invalid_parts(value)
    if bad:
        table.problems.append((line, f"invalid SMILES in {column}: {', '.join(limits.excerpt(b) for b in bad[:3])}"))
        return None
    parts = chem.canonical_parts(value) or []
    if single and len(parts) != 1:
        table.problems.append((line, f"the {column} should be one molecule, found {len(parts)}"))
        return None
    return ".".join(parts)
