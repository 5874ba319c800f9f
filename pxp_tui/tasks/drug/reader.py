"""Reading a SMILES from outside: the size limits first, then RDKit in its worker process; answers kept.

A SMILES from a dataset, a model's reply, the expert's field or a blackboard is measured against the
limits (``limits``) without RDKit; one within them is read by RDKit in a worker process
(:mod:`pxp_tui.tasks.isolated`, the functions of ``reading``), so that a molecule that crashes RDKit or
keeps it busy is refused, with a line saying why, and the session goes on. Where no worker process
can be started, RDKit reads in this process (the limits still apply).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from pxp_tui.tasks.drug import limits
from pxp_tui.tasks.isolated import IsolatedError, Worker, WorkerUnavailableError, inside

#: seconds RDKit may take over one SMILES (within the limits it takes milliseconds)
READ_TIMEOUT = 10.0
#: SMILES sent to the worker in one call by :func:`read_all`
BATCH = 256
_READING = "pxp_tui.tasks.drug.reading"
WORKER = Worker(preload=(_READING,), timeout=READ_TIMEOUT, name="RDKit worker")

#: SMILES -> (its canonical SMILES, None) or (None, why not); the oldest half dropped when full
_READ: dict[str, tuple[str | None, str | None]] = {}
_KEPT = 4_096

NOT_SMILES = "not valid SMILES"


def start() -> None:
    """Start the RDKit worker now (it imports RDKit meanwhile); the first reading starts it otherwise."""
    with contextlib.suppress(IsolatedError):  # the first reading says so, or reads here
        WORKER.start()


def _call(function: str, *args: Any, timeout: float | None = None) -> Any:
    """``reading.<function>(*args)`` in the worker; in this process if it is a worker itself (the drawing
    worker), or where no worker can be started."""
    if not inside():
        try:
            return WORKER.call(f"{_READING}:{function}", *args, timeout=timeout)
        except WorkerUnavailableError:
            pass
    from pxp_tui.tasks.drug import reading

    return getattr(reading, function)(*args)


def _keep(smiles: str, answer: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    if len(_READ) >= _KEPT:
        for old in list(_READ)[: _KEPT // 2]:
            _READ.pop(old, None)
    _READ[smiles] = answer
    return answer


def _answer(smiles: str, canon: object) -> tuple[str | None, str | None]:
    return (canon, None) if isinstance(canon, str) else (None, NOT_SMILES)


def read(smiles: str) -> tuple[str | None, str | None]:
    """(the canonical SMILES of ``smiles``, None), or (None, why there is none: a limit, invalid, RDKit failed)."""
    known = _READ.get(smiles)
    if known is not None:
        return known
    too_large = limits.refusal(smiles)
    if too_large:
        return None, too_large  # not kept: measuring is cheap, and such strings are large
    try:
        canon = _call("canonical", smiles)
    except IsolatedError as exc:
        return _keep(smiles, (None, f"RDKit failed on {limits.excerpt(smiles)}: the {WORKER.name} {exc}"))
    return _keep(smiles, _answer(smiles, canon))


def read_all(smiles: Iterable[str]) -> None:
    """Read many SMILES at once (a dataset's), :data:`BATCH` to a call; :func:`read` then answers from memory."""
    todo = [
        s for s in dict.fromkeys(smiles) if s and not any(ch.isspace() for ch in s) and s not in _READ and not limits.problem(s)
    ]
    for start_at in range(0, len(todo), BATCH):
        batch = todo[start_at : start_at + BATCH]
        try:
            found = _call("canonical_all", batch, timeout=READ_TIMEOUT * 4)
        except IsolatedError:
            continue  # one of them crashed RDKit or kept it busy: read one at a time, to know which
        for one, canon in zip(batch, found, strict=True):
            _keep(one, _answer(one, canon))


#: SMILES -> its fingerprint (:func:`fingerprint`); the oldest half dropped when full
_PRINTS: dict[str, str | None] = {}


def fingerprint(smiles: str) -> str | None:
    """The Morgan fingerprint (radius 2, 1024 bits) of a molecule RDKit can read, as 0s and 1s; None otherwise."""
    if smiles in _PRINTS:
        return _PRINTS[smiles]
    if read(smiles)[0] is None:
        return None
    try:
        found = _call("fingerprint", smiles)
    except IsolatedError:
        return None
    if len(_PRINTS) >= _KEPT:
        for old in list(_PRINTS)[: _KEPT // 2]:
            _PRINTS.pop(old, None)
    _PRINTS[smiles] = found if isinstance(found, str) else None
    return _PRINTS[smiles]


def weight_and_rings(smiles: str) -> tuple[float, int] | None:
    """RDKit's average molecular weight (g/mol) and count of aromatic rings of a molecule it can read, or None."""
    if read(smiles)[0] is None:
        return None
    try:
        found = _call("weight_and_rings", smiles)
    except IsolatedError:
        return None
    return (float(found[0]), int(found[1])) if found else None


def describe(smiles: str) -> dict[str, str] | None:
    """RDKit's formula and weight of a molecule it can read, or None."""
    if read(smiles)[0] is None:
        return None
    try:
        described = _call("describe", smiles)
    except IsolatedError:
        return None
    return described if isinstance(described, dict) else None
