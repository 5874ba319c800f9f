"""Pictures for the DRUG task: the target molecule, and a reaction reactants -> target.

Two media, chosen by the surface the picture is shown on (:class:`pxp_tui.tasks.pictures.Surface`):

- **Sixel, the kitty graphics protocol, image files**: RDKit draws a PNG at the surface's pixel size,
  light on black (RDKit's dark mode), with bonds thick enough to survive a few dozen cells.
- **Half-cell blocks and the unicode fallback** (tmux, most terminals over ssh): two pixels per
  cell are too few for a molecule. Candidates were drawn side by side at 38x9, 56x16 and 78x20
  cells (paracetamol, ibuprofen, flutamide, tolbutamide, bupropion and a reaction): RDKit's PNG as
  before, RDKit drawn at exactly the cells' pixels in black and white with thick bonds, and line
  art in braille dots (2 x 4 per cell), in quadrant blocks (2 x 2) and in half blocks (1 x 2), each
  with atom labels written as text. RDKit's pictures, tuned or not, leave rings as rings but every
  label a smudge of one or two coloured cells: O, N, F and Cl cannot be told apart. All three line
  arts keep the labels; braille, with four times the pixels of half blocks, is the only one whose
  rings, double bonds and substituents stay distinct at 38x9 (the picture's size at 80x24), and the
  crispest at full screen. So molecules are drawn by ``sketch`` in braille, labels in bold colour.

Importing this module loads RDKit's drawing code (about 0.2 s): callers import it off the UI loop.
"""

from __future__ import annotations

from rdkit import Chem
from rdkit.Chem import rdChemReactions
from rdkit.Chem.Draw import rdMolDraw2D

from pxp_tui.tasks.drug import chem, sketch
from pxp_tui.tasks.pictures import CellPicture, Surface

#: RDKit draws at least this many pixels across; smaller pictures are drawn larger, then scaled down
_MIN_SIDE = 480


def _canvas(size: tuple[int, int]) -> rdMolDraw2D.MolDraw2DCairo:
    """A canvas for a picture shown at ``size`` pixels: lines stay about 1.5 px wide once scaled down."""
    width, height = max(size[0], 8), max(size[1], 4)
    scale = max(1.0, _MIN_SIDE / max(width, height))
    canvas = rdMolDraw2D.MolDraw2DCairo(round(width * scale), round(height * scale))
    options = canvas.drawOptions()
    rdMolDraw2D.SetDarkMode(options)
    # RDKit's generated stubs type these properties as the options object itself: hence the ignores
    options.bondLineWidth = max(2, round(1.5 * scale))  # type: ignore[assignment]
    options.scaleBondWidth = False  # type: ignore[assignment]
    options.minFontSize = max(10, round(7 * scale))  # type: ignore[assignment]
    options.padding = 0.05  # type: ignore[assignment]
    return canvas


def molecule(smiles: str, surface: Surface | tuple[int, int]) -> bytes | CellPicture | None:
    """The molecule ``smiles`` drawn for ``surface``, or None if RDKit cannot read it."""
    surface = Surface.of(surface)
    if surface.coarse:
        drawn = sketch.sketch(smiles)
        return sketch.draw([drawn], surface.cols, surface.rows) if drawn else None
    return molecule_png(smiles, surface.pixels)


def reaction(reactants: str, target: str, surface: Surface | tuple[int, int]) -> bytes | CellPicture | None:
    """The reaction ``reactants >> target`` drawn for ``surface``, or None if a molecule cannot be read."""
    surface = Surface.of(surface)
    if not surface.coarse:
        return reaction_png(reactants, target, surface.pixels)
    parts, product = chem.canonical_parts(reactants), chem.canonical(target)
    if not parts or product is None:
        return None
    drawn = [sketch.sketch(smiles) for smiles in [*parts, product]]
    if any(d is None for d in drawn):
        return None
    items: list[sketch.Sketch | str] = []
    for i, one in enumerate(drawn):
        if i:
            items.append("→" if i == len(parts) else "+")
        items.append(one)  # type: ignore[arg-type]
    return sketch.draw(items, surface.cols, surface.rows)


def molecule_png(smiles: str, size: tuple[int, int]) -> bytes | None:
    """The molecule ``smiles`` as a PNG of about ``size`` pixels, or None if RDKit cannot read it."""
    mol = Chem.MolFromSmiles(smiles) if chem.canonical(smiles) else None
    if mol is None:
        return None
    canvas = _canvas(size)
    canvas.DrawMolecule(mol)
    canvas.FinishDrawing()
    png: bytes = canvas.GetDrawingText()
    return png


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
    png: bytes = canvas.GetDrawingText()
    return png
