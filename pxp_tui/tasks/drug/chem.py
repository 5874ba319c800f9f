"""RDKit helpers for the DRUG task: canonical reactant sets, SMILES found in prose, descriptors.

Every SMILES is read through ``reader``: the size limits first, then RDKit in its worker process.
"""

from __future__ import annotations

import re

from pxp_tui.tasks.drug import limits, reader

_SPLIT = re.compile(r"\s*(?:>>|->|→|⟶|=>|\+|,|;|\band\b|\s)\s*")
_BRACKET_ATOM = re.compile(r"\[[^\[\]\s]*\]")
_SMILES_CHARS = re.compile(r"^[A-Za-z0-9@+\-\[\]\(\)=#$:/\\.%*]+$")
_SPACE = re.compile(r"\s")  # what str.isspace() calls a space, found in C


def canonical(smiles: str) -> str | None:
    """The canonical SMILES of one molecule, or None if it does not parse (or is over a size limit)."""
    smiles = smiles.strip()
    if not smiles or _SPACE.search(smiles):  # RDKit reads text after a space as a name
        return None
    return reader.read(smiles)[0]


def refusal(smiles: str) -> str | None:
    """Why ``smiles`` (a molecule, or a '.'-joined set) cannot be read, in one line; None if it can.

    A size limit is named ("too large for a SMILES: 20,000 atoms, over the limit of 500"); molecules RDKit
    cannot read are listed ("not valid SMILES: C1CC").
    """
    smiles = smiles.strip()
    too_large = limits.refusal(smiles)
    if too_large:
        return too_large
    bad = invalid_parts(smiles)
    failed = [why for part in bad if (why := reader.read(part.strip())[1]) and why.startswith("RDKit")]
    if failed:
        return failed[0]
    return "not valid SMILES: " + ", ".join(_short(part) for part in bad[:3]) if bad else None


def oversized(text: str) -> str | None:
    """The size problem of the first word of ``text`` (prose, or SMILES) over a SMILES limit; None if none is."""
    for token in _tokens(text):
        problem = limits.problem(token)
        if problem:
            return f"a SMILES too large: {problem}"
    return None


def _short(part: str, width: int = 40) -> str:
    part = part.strip()
    return part if len(part) <= width else f"{part[:width]}... ({len(part):,} characters)"


def canonical_parts(smiles: str) -> list[str] | None:
    """Canonical SMILES of each '.'-separated molecule, sorted; None if any part is invalid."""
    parts = [p for p in smiles.strip().split(".") if p.strip()]
    if not parts or limits.problem(smiles.strip()):
        return None
    out = [canonical(p) for p in parts]
    if any(c is None for c in out):
        return None
    return sorted(set(out))  # type: ignore[arg-type]


def in_common(a: str, b: str, *, fingerprint: bool = False) -> bool:
    """The reference scripts' MATCH (``DRUG.match``): a molecule of ``a`` and one of ``b`` have the same canonical
    SMILES; with ``fingerprint``, or the same Morgan fingerprint (radius 2, 1024 bits), compared bit for bit.
    Parts RDKit cannot read are left out (the reference drops them from a reply too)."""
    ours = {c for p in a.strip().split(".") if p.strip() and (c := canonical(p))}
    theirs = {c for p in b.strip().split(".") if p.strip() and (c := canonical(p))}
    if ours & theirs:
        return True
    if not fingerprint:
        return False
    prints = {f for c in ours if (f := reader.fingerprint(c))}
    return any(reader.fingerprint(c) in prints for c in theirs)


def invalid_parts(smiles: str) -> list[str]:
    """The '.'-separated parts of ``smiles`` that RDKit cannot read."""
    return [p for p in smiles.strip().split(".") if p.strip() and canonical(p) is None]


_ALIPHATIC_ONLY = re.compile(r"^(?:Cl|Br|[BCNOSPFI])+$")


def _looks_like_smiles(token: str) -> bool:
    """A token that is plausibly a SMILES string rather than a word (RDKit decides validity)."""
    if not _SMILES_CHARS.match(token):
        return False
    if any(ch in token for ch in "()=#[]@0123456789") or any(ch in token for ch in "cnos"):
        return True
    return len(token) >= 2 and bool(_ALIPHATIC_ONLY.match(token))


def _candidates(token: str) -> list[str]:
    token = token.strip().strip("*_'\"`").rstrip(".,;:")
    out = [token]
    while token.startswith("(") and token.endswith(")"):
        token = token[1:-1]
        out.append(token)
    if token.startswith("(") and not token.endswith(")"):
        out.append(token[1:])
    if token.endswith(")") and token.count(")") > token.count("("):
        out.append(token[:-1])
    return out


def _tokens(text: str) -> list[str]:
    """``text`` split at separators (spaces, "+", ",", "and", arrows), never inside a bracket atom ("[N+]")."""
    atoms: list[str] = []

    def hold(found: re.Match[str]) -> str:
        atoms.append(found.group(0))
        return f"\0{len(atoms) - 1}\0"

    held = _BRACKET_ATOM.sub(hold, text)
    return [re.sub(r"\0(\d+)\0", lambda found: atoms[int(found.group(1))], token) for token in _SPLIT.split(held)]


def smiles_in(text: str, exclude: str | None = None) -> list[str]:
    """Canonical SMILES of the molecules written in ``text`` (a '.'-joined string, or tokens in prose).

    ``exclude`` (the target) is left out, so "Target >> A + B" gives A and B.
    """
    text = text.strip().strip("`").strip()
    target = canonical(exclude) if exclude else None
    if ">>" in text:  # reaction SMILES: retro "target>>reactants" or forward "reactants>>product"
        left, _, right = text.partition(">>")
        left_parts, right_parts = canonical_parts(left.strip()), canonical_parts(right.strip())
        retro = (target and left_parts == [target]) or (
            not target and left_parts is not None and len(left_parts) == 1 and len(right_parts or []) > 1
        )
        text = right if retro else left
    found = canonical_parts(text)
    if found is None:
        found = []
        for token in _tokens(text.replace("`", " ")):
            for candidate in _candidates(token):
                parts = [p for p in candidate.split(".") if p]
                if parts and all(_looks_like_smiles(p) for p in parts):
                    canon = [canonical(p) for p in parts]
                    if all(canon):
                        found.extend(c for c in canon if c not in found)  # type: ignore[misc]
                        break
    return sorted(c for c in set(found) if c != target)


def describe(smiles: str) -> dict[str, str]:
    """Formula, molecular weight and the SMILES of a molecule, as given (what the machine is sent, not a canonical form)."""
    described = reader.describe(smiles.strip())
    return {**described, "smiles": smiles} if described else {"smiles": smiles, "formula": "?", "weight": "?"}
