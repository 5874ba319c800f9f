"""Pictures for the DRUG task, drawn by RDKit: the target molecule, and a reaction reactants -> target.

Drawn light on black (RDKit's dark mode) with bonds thick enough to survive being shown in a few
dozen terminal cells. Importing this module loads RDKit's drawing code (about 0.2 s): callers
import it off the UI loop.
"""

from __future__ import annotations

from rdkit import Chem
from rdkit.Chem import rdChemReactions
from rdkit.Chem.Draw import rdMolDraw2D

from pxp_tui.tasks.drug import chem

#: RDKit draws at least this many pixels across; smaller pictures are drawn larger, then scaled down
_MIN_SIDE = 480


def _canvas(size: tuple[int, int]) -> rdMolDraw2D.MolDraw2DCairo:
    """A canvas for a picture shown at ``size`` pixels: lines stay about 1.5 px wide once scaled down."""
    width, height = max(size[0], 8), max(size[1], 4)
    scale = max(1.0, _MIN_SIDE / max(width, height))
    canvas = rdMolDraw2D.MolDraw2DCairo(round(width * scale), round(height * scale))
    options = canvas.drawOptions()
    rdMolDraw2D.SetDarkMode(options)
    options.bondLineWidth = max(2, round(1.5 * scale))
    options.scaleBondWidth = False
    options.minFontSize = max(10, round(7 * scale))
    options.padding = 0.05
    return canvas


def molecule_png(smiles: str, size: tuple[int, int]) -> bytes | None:
    """The molecule ``smiles`` as a PNG, or None if RDKit cannot read it."""
    mol = Chem.MolFromSmiles(smiles) if chem.canonical(smiles) else None
    if mol is None:
        return None
    canvas = _canvas(size)
    canvas.DrawMolecule(mol)
    canvas.FinishDrawing()
    return canvas.GetDrawingText()


def reaction_png(reactants: str, target: str, size: tuple[int, int]) -> bytes | None:
    """The reaction ``reactants >> target`` as a PNG, or None if a molecule cannot be read."""
    parts = chem.canonical_parts(reactants)
    product = chem.canonical(target)
    if not parts or product is None:
        return None
    reaction = rdChemReactions.ReactionFromSmarts(f"{'.'.join(parts)}>>{product}", useSmiles=True)
    canvas = _canvas(size)
    canvas.DrawReaction(reaction)
    canvas.FinishDrawing()
    return canvas.GetDrawingText()
