"""Size limits on a SMILES string, checked before RDKit reads it (no RDKit here).

RDKit reads a SMILES of any size, but what it does next does not scale: writing a canonical SMILES
of a 19,000-atom chain overflows the stack (the process dies with SIGSEGV, no exception); at 15,000
atoms it takes 12 s, at 5,000 half a second. Ring closures cost more: a densely bridged molecule
with 740 ring bonds takes 3.6 s to read and 400 MB. Drawing (2D coordinates) grows with the cube of
the atoms: 0.5 s for 500, 4 s for 1,000, 33 s for 2,000 (docs/reliability.md has the measurements).

So every SMILES from outside (a dataset, a model's reply, the expert's field, a blackboard) is
measured here first, by counting characters, not by parsing: atoms (bracket atoms, the organic
subset, aromatic atoms, ``*``), the depth of nested branches, and ring-closure bonds. The limits are
ten times the largest molecules of the papers' data (52 atoms, 5 nested branches, 6 ring closures),
and far below where RDKit slows down.
"""

from __future__ import annotations

import re

#: characters in one SMILES (a molecule, or a '.'-joined set of them)
MAX_CHARACTERS = 5_000
#: atoms in one SMILES (all its molecules)
MAX_ATOMS = 500
#: parentheses open at once
MAX_BRANCH_DEPTH = 100
#: ring-closure bonds (pairs of ring-bond numbers: ``1``, ``%12``, ``%(123)``)
MAX_RING_CLOSURES = 100

_TOKEN = re.compile(r"\[[^\]]*\]|Cl|Br|[BCNOSPFIbcnosp*]|%\(\d+\)|%\d\d|\d|\(|\)")


def measure(smiles: str) -> tuple[int, int, int]:
    """(atoms, deepest branch nesting, ring-closure bonds) of ``smiles``, counted from its characters."""
    atoms = depth = deepest = ring_numbers = 0
    for token in _TOKEN.findall(smiles):
        first = token[0]
        if first == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif first == ")":
            depth = max(0, depth - 1)
        elif first == "%" or first.isdigit():
            ring_numbers += 1
        else:
            atoms += 1
    return atoms, deepest, (ring_numbers + 1) // 2


def problem(smiles: str) -> str | None:
    """Why ``smiles`` is too large to give RDKit, naming the limit; None if it is within every limit."""
    if len(smiles) > MAX_CHARACTERS:
        return f"{len(smiles):,} characters, over the limit of {MAX_CHARACTERS:,}"
    atoms, depth, closures = measure(smiles)
    if atoms > MAX_ATOMS:
        return f"{atoms:,} atoms, over the limit of {MAX_ATOMS:,}"
    if depth > MAX_BRANCH_DEPTH:
        return f"branches nested {depth:,} deep, over the limit of {MAX_BRANCH_DEPTH:,}"
    if closures > MAX_RING_CLOSURES:
        return f"{closures:,} ring closures, over the limit of {MAX_RING_CLOSURES:,}"
    return None


def refusal(smiles: str) -> str | None:
    """:func:`problem` as a refusal ("too large for a SMILES: 20,000 atoms, over the limit of 500"), or None."""
    found = problem(smiles)
    return f"too large for a SMILES: {found}" if found else None


def excerpt(text: str, width: int = 40) -> str:
    """``text`` quoted for a one-line message: cut to ``width`` characters, its length said when cut."""
    text = " ".join(text.split())
    if len(text) <= width:
        return repr(text)
    return f"{text[:width]!r}... ({len(text):,} characters)"
