"""Checks on the bundled DRUG demo dataset (pxp_tui/assets/demo/drug.csv)."""

from __future__ import annotations

import csv
import io
import re
from importlib.resources import files

import pytest
from rdkit import Chem
from rdkit.Chem import Descriptors, rdMolDescriptors

from pxp_tui.tasks.drug.templates import canonical_set, disconnections, identify

COLUMNS = ["key", "name", "input", "output", "explanation"]


def _rows() -> list[dict[str, str]]:
    text = (files("pxp_tui.assets") / "demo" / "drug.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == COLUMNS
    return list(reader)


ROWS = _rows()
IDS = [r["key"] for r in ROWS]


def test_size_and_keys():
    assert 18 <= len(ROWS) <= 30
    assert len(set(IDS)) == len(IDS)
    for key in IDS:
        assert re.fullmatch(r"[a-z][a-z0-9_-]*", key), key
    assert len({r["name"].lower() for r in ROWS}) == len(ROWS)


def test_demo_note_exists():
    note = (files("pxp_tui.assets") / "demo" / "DRUG.md").read_text(encoding="utf-8")
    assert "150" in note and "300" in note and "aromatic" in note


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_row(row):
    for col in COLUMNS:
        assert row[col].strip() == row[col] and row[col], (row["key"], col)
    mol = Chem.MolFromSmiles(row["input"])
    assert mol is not None
    assert "." not in row["input"]
    assert 150 <= Descriptors.MolWt(mol) <= 300, Descriptors.MolWt(mol)
    assert rdMolDescriptors.CalcNumAromaticRings(mol) >= 1
    reactants = canonical_set(row["output"])
    assert reactants is not None, row["output"]
    assert all(Chem.MolFromSmiles(s) is not None for s in row["output"].split("."))
    target = Chem.MolToSmiles(mol)
    assert target not in reactants
    assert len(row["output"].split(".")) == len(reactants)  # no duplicated reactant
    sentences = [s for s in re.split(r"(?<=[a-z0-9)])\.\s+", row["explanation"]) if s]
    assert 2 <= len(sentences) <= 4, sentences


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_heavy_atoms_are_conserved(row):
    """Reactants carry every heavy atom of the target (the rest is the leaving group)."""

    def counts(smiles: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for part in smiles.split("."):
            for atom in Chem.MolFromSmiles(part).GetAtoms():
                out[atom.GetSymbol()] = out.get(atom.GetSymbol(), 0) + 1
        return out

    target, reactants = counts(row["input"]), counts(row["output"])
    for element, n in target.items():
        assert reactants.get(element, 0) >= n, (row["key"], element)


def test_baseline_has_something_to_learn():
    """Most references are template disconnections, but often not the first one proposed."""
    with_any = identified = first = 0
    for row in ROWS:
        ds = disconnections(row["input"])
        with_any += bool(ds)
        if identify(row["input"], row["output"]) is not None:
            identified += 1
            first += frozenset(ds[0].reactants) == canonical_set(row["output"])
    n = len(ROWS)
    assert with_any >= 0.9 * n
    assert 0.7 * n <= identified < n  # most, not all
    assert 0.25 * identified <= identified - first  # a good share are not the first guess
    assert first >= 0.25 * identified  # ...and a fair share are
