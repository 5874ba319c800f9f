"""The papers' selection of DRUG molecules (001 Sec. 4.1.2, 002 App. B): "a molecular weight between 150g/mol -
300g/mol and at least one aromatic ring" (``pxp import drug --papers-selection``).

The weight is RDKit's average molecular weight (``Descriptors.MolWt``), bounds included; a ring is aromatic as
RDKit perceives it (``CalcNumAromaticRings``). Of the reference's ``retro.csv``, 31 of the 95 targets meet it (with
``--reference-split``: 1 of the 9 training molecules, 9 of the 19 validation ones, 4 of the 19 test ones).
"""

from __future__ import annotations

from collections.abc import Sequence

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.drug import reader

LOW, HIGH = 150.0, 300.0
DESCRIBED = f"{LOW:g}-{HIGH:g} g/mol with an aromatic ring"


def meets(smiles: str) -> bool:
    """Whether the molecule ``smiles`` is of the papers' selection."""
    found = reader.weight_and_rings(smiles.strip())
    return found is not None and LOW <= found[0] <= HIGH and found[1] >= 1


def select(rows: Sequence[DatasetRow]) -> tuple[list[DatasetRow], int]:
    """The rows whose target is of the papers' selection, in order, and how many were left out."""
    kept = [row for row in rows if meets(row.input)]
    return kept, len(rows) - len(kept)
