"""RDKit's door: the one private part of RDKit pxp uses, checked by a canary (``tests/app/test_internals.py``).

``rdkit.Chem.Descriptors``, RDKit's public home of the average molecular weight, imports its fingerprint generators,
and numpy with them, as it loads: about 0.2 s of CPU at each start of the RDKit worker (``reading``), while the first
session starts beside it on a machine of two cores. The weight is all the worker takes from that module.
"""

from __future__ import annotations

from typing import Any

from rdkit.Chem import rdMolDescriptors


def average_weight(mol: Any) -> float:
    """RDKit's average molecular weight of ``mol`` in g/mol, as ``Descriptors.MolWt`` gives it.

    Relies on: ``rdMolDescriptors._CalcMolWt``, the function ``Descriptors.MolWt`` calls (``rdkit/Chem/Descriptors.py``:
    ``MolWt = lambda *x, **y: _rdMolDescriptors._CalcMolWt(*x, **y)``).
    """
    return float(rdMolDescriptors._CalcMolWt(mol))
