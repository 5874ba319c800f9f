"""What RDKit does with a SMILES from outside: run in the RDKit worker process (``chem`` sends it there).

Called only with SMILES within the size limits (``limits``). A crash or a runaway here ends the worker,
not the session (:mod:`pxp_tui.tasks.isolated`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rdkit import Chem, rdBase
from rdkit.Chem import rdMolDescriptors

from pxp_tui.tasks.drug.rdkit_internals import average_weight

rdBase.DisableLog("rdApp.*")


def canonical(smiles: str) -> str | None:
    """The canonical SMILES of ``smiles``, or None if RDKit cannot read it."""
    try:
        mol = Chem.MolFromSmiles(smiles)
    except Exception:  # noqa: BLE001 - RDKit can raise on pathological input
        return None
    return None if mol is None else Chem.MolToSmiles(mol)


def describe(smiles: str) -> dict[str, str]:
    """Formula, molecular weight and the SMILES of a molecule, as given (what the machine is sent, not a canonical form)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"smiles": smiles, "formula": "?", "weight": "?"}
    return {
        "smiles": smiles,
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "weight": f"{average_weight(mol):.1f} g/mol",
    }


@cache
def _morgan() -> Any:
    """The reference scripts' fingerprint (``GetMorganFingerprintAsBitVect(mol, radius=2, nBits=1024)``), from RDKit's
    generator, which sets the same bits. Made at the first fingerprint: its module imports numpy (0.2 s), which the
    worker's start does without (MATCH by fingerprint is not the default rule)."""
    from rdkit.Chem import rdFingerprintGenerator

    return rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)


def fingerprint(smiles: str) -> str | None:
    """The Morgan fingerprint (radius 2, 1024 bits) of ``smiles`` as a string of 0s and 1s, or None if RDKit cannot read it."""
    try:
        mol = Chem.MolFromSmiles(smiles)
    except Exception:  # noqa: BLE001 - RDKit can raise on pathological input
        return None
    return None if mol is None else str(_morgan().GetFingerprint(mol).ToBitString())


def weight_and_rings(smiles: str) -> tuple[float, int] | None:
    """The average molecular weight (g/mol) and the number of aromatic rings of ``smiles``, or None if RDKit cannot read it."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    weight = average_weight(mol)
    return weight, int(rdMolDescriptors.CalcNumAromaticRings(mol))


def canonical_all(smiles: list[str]) -> list[str | None]:
    """:func:`canonical` of each."""
    return [canonical(one) for one in smiles]
