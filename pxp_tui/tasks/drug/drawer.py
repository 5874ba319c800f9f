"""Molecules drawn by RDKit in a worker process of their own (``draw`` runs there, and the offline
baseline's ``templates``).

RDKit holds Python's lock while it lays a molecule out: a 500-atom molecule took the app's screen away
for a second, and a layout that crashed would have ended the app. In a worker process it costs a
picture at worst (none is shown), and the app stays responsive. A second worker, so that a drawing
never holds up the reading of a SMILES as the expert types (``reader``).
"""

from __future__ import annotations

import contextlib

from pxp_tui.tasks.drug import limits
from pxp_tui.tasks.isolated import IsolatedError, Worker, WorkerUnavailableError
from pxp_tui.tasks.pictures import Drawing, Surface

#: seconds RDKit may take over one picture (within the size limits: well under one)
DRAW_TIMEOUT = 30.0
_DRAW = "pxp_tui.tasks.drug.draw"
DRAWER = Worker(preload=(_DRAW, "pxp_tui.tasks.drug.templates"), timeout=DRAW_TIMEOUT, name="RDKit drawing worker")


def start() -> None:
    """Start the drawing worker now (it imports RDKit's drawing code meanwhile)."""
    with contextlib.suppress(IsolatedError):  # the first drawing draws here, or shows none
        DRAWER.start()


def _draw(function: str, *args: object) -> Drawing:
    try:
        drawn: Drawing = DRAWER.call(f"{_DRAW}:{function}", *args)
    except WorkerUnavailableError:
        from pxp_tui.tasks.drug import draw

        drawn = getattr(draw, function)(*args)
    except IsolatedError:
        return None  # it crashed or took too long: no picture, and the next one has a new worker
    return drawn


def molecule(smiles: str, surface: Surface | tuple[int, int]) -> Drawing:
    """The molecule drawn for ``surface`` (see ``draw.molecule``), or None."""
    return None if limits.problem(smiles.strip()) else _draw("molecule", smiles, Surface.of(surface))


def reaction(reactants: str, target: str, surface: Surface | tuple[int, int]) -> Drawing:
    """The reaction ``reactants >> target`` drawn for ``surface`` (see ``draw.reaction``), or None."""
    if limits.problem(reactants.strip()) or limits.problem(target.strip()):
        return None
    return _draw("reaction", reactants, target, Surface.of(surface))
