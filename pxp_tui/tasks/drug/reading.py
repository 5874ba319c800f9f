"""What RDKit does with a SMILES from outside: run in the RDKit worker process (``chem`` sends it there).

Called only with SMILES within the size limits (``limits``). A crash or a runaway here ends the worker,
not the session (:mod:`pxp_tui.tasks.isolated`).
"""

from __future__ import annotations

from rdkit import Chem, rdBase
from rdkit.Chem import Descriptors, rdFingerprintGenerator, rdMolDescriptors

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
        "weight": f"{Descriptors.MolWt(mol):.1f} g/mol",  # type: ignore[attr-defined]  # made at import: not in RDKit's stubs
    }


#: the reference scripts' fingerprint (``GetMorganFingerprintAsBitVect(mol, radius=2, nBits=1024)``), from RDKit's
#: generator, which sets the same bits
_MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)


def fingerprint(smiles: str) -> str | None:
    """The Morgan fingerprint (radius 2, 1024 bits) of ``smiles`` as a string of 0s and 1s, or None if RDKit cannot read it."""
    try:
        mol = Chem.MolFromSmiles(smiles)
    except Exception:  # noqa: BLE001 - RDKit can raise on pathological input
        return None
    return None if mol is None else str(_MORGAN.GetFingerprint(mol).ToBitString())


def weight_and_rings(smiles: str) -> tuple[float, int] | None:
    """The average molecular weight (g/mol) and the number of aromatic rings of ``smiles``, or None if RDKit cannot read it."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    weight = float(Descriptors.MolWt(mol))  # type: ignore[attr-defined]  # made at import: not in RDKit's stubs
    return weight, int(rdMolDescriptors.CalcNumAromaticRings(mol))


def canonical_all(smiles: list[str]) -> list[str | None]:
    """:func:`canonical` of each."""
    return [canonical(one) for one in smiles]
