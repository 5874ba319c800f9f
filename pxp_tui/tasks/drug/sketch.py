"""Molecules and reactions drawn in terminal characters: bonds in braille dots, atom labels in letters.

For terminals that show pictures as half-cell blocks (tmux, most terminals over ssh) or as the
unicode fallback. RDKit lays the molecule out (2D coordinates, Kekulé form, rings); the bonds are
drawn as lines on a grid of 2 x 4 dots per cell (Pillow), encoded as Unicode braille; every
labelled atom (heteroatoms and charged atoms, with their hydrogens and charge) is written as real,
bold, coloured text in the cell where the atom is. The label's cell replaces the dots under it, so
bonds stop at the letters as they do in a drawing. See ``draw.py`` for why this was chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median

from PIL import Image, ImageDraw
from rdkit import Chem
from rdkit.Chem import rdDepictor
from rdkit.Chem.Draw import rdMolDraw2D

from pxp_tui.tasks.drug import chem
from pxp_tui.tasks.pictures import CellPicture, braille

#: element -> style of its label: bold, in colours that read on dark and on light backgrounds
ELEMENT_STYLES = {
    "O": "bold #ff5f5f",
    "N": "bold #5f9fff",
    "S": "bold #d7af00",
    "P": "bold #ff9f3f",
    "F": "bold #3fcf7f",
    "Cl": "bold #3fcf7f",
    "Br": "bold #cf6f4f",
    "I": "bold #bf7fff",
}
LABEL_STYLE = "bold"
SEPARATOR_STYLE = "bold"
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUPERSCRIPT = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
#: the longest bond drawn, in cells across (a small molecule on a big screen stays a drawing, not a poster)
MAX_BOND = 16.0


@dataclass(frozen=True)
class Label:
    """An atom's label: its symbol, the hydrogens on it ("H", "H₂") and its charge ("⁺")."""

    symbol: str
    hydrogens: str
    charge: str
    style: str

    def placed(self, towards: float) -> tuple[str, int]:
        """The text, and the index of its character at the atom's cell, given where the bonds go (> 0: right).

        Bonds leaving to the right put the hydrogens on the left ("HO", "H₂N"), as chemists draw them.
        """
        if towards > 0.1:
            return self.hydrogens + self.symbol + self.charge, len(self.hydrogens) + len(self.symbol) - 1
        return self.symbol + self.hydrogens + self.charge, 0


Bond = tuple[int, int, int, "tuple[float, float] | None"]  # (atom, atom, order, centre of its ring)


@dataclass(frozen=True)
class Sketch:
    """One molecule laid out in bond lengths (median bond = 1, y down, top left at 0, 0), with its labels."""

    points: tuple[tuple[float, float], ...]
    bonds: tuple[Bond, ...]
    labels: dict[int, Label]

    @property
    def width(self) -> float:
        return max(x for x, _ in self.points)

    @property
    def height(self) -> float:
        return max(y for _, y in self.points)

    def towards(self, atom: int) -> float:
        """How far right (+) or left (-) the bonds of ``atom`` go, summed."""
        x = self.points[atom][0]
        return sum(self.points[b if a == atom else a][0] - x for a, b, _, _ in self.bonds if atom in (a, b))

    def reach(self) -> tuple[int, int]:
        """How many cells the labels stick out left and right of the leftmost and rightmost atoms (at least 1)."""
        left = right = 1
        width = self.width
        for atom, label in self.labels.items():
            text, anchor = label.placed(self.towards(atom))
            x = self.points[atom][0]
            if x <= 0.01:
                left = max(left, anchor + 1)
            if x >= width - 0.01:
                right = max(right, len(text) - anchor)
        return left, right

    def rotated(self, degrees: float) -> Sketch:
        """The same molecule turned by ``degrees`` (labels take their side from where the bonds then go)."""
        turn = complex(math.cos(math.radians(degrees)), math.sin(math.radians(degrees)))
        moved = [complex(x, y) * turn for x, y in self.points]
        left, top = min(p.real for p in moved), min(p.imag for p in moved)

        def back(p: complex) -> tuple[float, float]:
            return (p.real - left, p.imag - top)

        bonds = tuple((a, b, order, back(complex(*c) * turn) if c else None) for a, b, order, c in self.bonds)
        return Sketch(tuple(back(p) for p in moved), bonds, self.labels)

    def fitted(self, cols: float, rows: float) -> Sketch:
        """Turned by a multiple of 30 degrees so as to be drawn largest in ``cols`` x ``rows`` cells (as laid out, on a tie)."""

        def size(sketch: Sketch) -> float:
            return min(cols / sketch.width if sketch.width else math.inf, 2 * rows / sketch.height if sketch.height else math.inf)

        best = self
        for degrees in (30, 60, 90, 120, 150):
            turned = self.rotated(degrees)
            if size(turned) > size(best) * 1.05:
                best = turned
        return best


def sketch(smiles: str) -> Sketch | None:
    """One molecule (``smiles``) laid out by RDKit, or None if it does not parse."""
    mol = Chem.MolFromSmiles(smiles) if chem.canonical(smiles) else None
    if mol is None:
        return None
    rdDepictor.SetPreferCoordGen(True)
    mol = rdMolDraw2D.PrepareMolForDrawing(mol, addChiralHs=False)
    conformer = mol.GetConformer()
    raw = [(conformer.GetAtomPosition(i).x, -conformer.GetAtomPosition(i).y) for i in range(mol.GetNumAtoms())]
    lengths = [math.dist(raw[b.GetBeginAtomIdx()], raw[b.GetEndAtomIdx()]) for b in mol.GetBonds()]
    unit = median(lengths) if lengths else 1.0
    left, top = min(x for x, _ in raw), min(y for _, y in raw)
    points = [((x - left) / unit, (y - top) / unit) for x, y in raw]
    rings = mol.GetRingInfo().BondRings()
    bonds: list[Bond] = []
    for bond in mol.GetBonds():
        order = {Chem.BondType.DOUBLE: 2, Chem.BondType.TRIPLE: 3}.get(bond.GetBondType(), 1)
        ring = min((r for r in rings if bond.GetIdx() in r), key=len, default=None)
        centre = None
        if order == 2 and ring is not None:  # its second line is drawn inside the ring
            atoms = {i for j in ring for i in (mol.GetBondWithIdx(j).GetBeginAtomIdx(), mol.GetBondWithIdx(j).GetEndAtomIdx())}
            centre = (sum(points[i][0] for i in atoms) / len(atoms), sum(points[i][1] for i in atoms) / len(atoms))
        bonds.append((bond.GetBeginAtomIdx(), bond.GetEndAtomIdx(), order, centre))
    labels = {atom.GetIdx(): label for atom in mol.GetAtoms() if (label := _label(atom)) is not None}
    return Sketch(tuple(points), tuple(bonds), labels)


def _label(atom: Chem.Atom) -> Label | None:
    """Heteroatoms, charged atoms and lone atoms are labelled; skeletal carbons are not (as in drawings)."""
    symbol, charge = atom.GetSymbol(), atom.GetFormalCharge()
    if symbol == "C" and not charge and atom.GetDegree() > 0:
        return None
    count = atom.GetTotalNumHs()
    hydrogens = ("H" + (str(count) if count > 1 else "").translate(_SUBSCRIPT)) if count else ""
    sign = (
        ((str(abs(charge)) if abs(charge) > 1 else "") + ("+" if charge > 0 else "-")).translate(_SUPERSCRIPT) if charge else ""
    )
    return Label(symbol, hydrogens, sign, ELEMENT_STYLES.get(symbol, LABEL_STYLE))


def draw(items: Sequence[Sketch | str], cols: int, rows: int) -> CellPicture:
    """``items`` (molecules, and words such as "+" or "→" between them) side by side on ``cols`` x ``rows`` cells.

    The molecules are drawn at one scale, as large as the cells allow (a bond at most ``MAX_BOND``
    cells across), each turned to fit its share of the width, the whole centred.
    """
    words = [f" {item} " for item in items if isinstance(item, str)]
    count = len(items) - len(words)
    share = max(1.0, (cols - sum(map(len, words))) / max(1, count) - 4)
    laid = [item.fitted(share, rows - 1) if isinstance(item, Sketch) else f" {item} " for item in items]
    molecules = [item for item in laid if isinstance(item, Sketch)]
    margins = {id(m): m.reach() for m in molecules}  # cells for the labels that stick out ("HO", "NH₂")
    free = cols - sum(map(len, words)) - sum(left + right for left, right in margins.values())
    wide = sum(m.width for m in molecules)
    tall = max((m.height for m in molecules), default=0.0)
    # the scale in cells across per bond length; a cell is about twice as tall as it is wide
    scale = min(MAX_BOND, free / wide if wide else MAX_BOND, 2 * (rows - 1) / tall if tall else MAX_BOND)
    scale = max(scale, 0.5)
    used = cols - free + wide * scale
    x = max(0.0, (cols - used) / 2)
    dots = Image.new("1", (2 * cols, 4 * rows), 0)
    pen = ImageDraw.Draw(dots)
    letters: dict[tuple[int, int], tuple[str, str]] = {}  # (column, row) -> (character, style)
    for item in laid:
        if isinstance(item, str):
            for i, ch in enumerate(item):
                letters[(int(x) + i, rows // 2)] = (ch, SEPARATOR_STYLE)
            x += len(item)
            continue
        before, after = margins[id(item)]
        left, top = x + before, (rows - item.height * scale / 2) / 2

        def cell(point: tuple[float, float], left: float = left, top: float = top) -> tuple[float, float]:
            return (left + point[0] * scale, top + point[1] * scale / 2)

        _bonds(pen, item, cell)
        # the most bonded atoms first (the N of a nitro group before its oxygens); a label whose
        # cells are taken moves to the nearest free place, so that crowded labels all stay legible
        for atom in sorted(item.labels, key=lambda a: -sum(a in bond[:2] for bond in item.bonds)):
            text, anchor = item.labels[atom].placed(item.towards(atom))
            cx, cy = cell(item.points[atom])
            _write(letters, text, int(cx) - anchor, min(int(cy), rows - 1), item.labels[atom].style, cols, rows)
        x += before + item.width * scale + after
    return _picture(dots, letters)


#: where a label goes when the cells at its atom hold another label: beside it, above, below
_NUDGES = ((0, 0), (1, 0), (-1, 0), (0, -1), (0, 1), (2, 0), (-2, 0), (1, -1), (1, 1), (-1, -1), (-1, 1))


def _write(letters: dict[tuple[int, int], tuple[str, str]], text: str, x: int, y: int, style: str, cols: int, rows: int) -> None:
    """``text`` at (x, y), or at the nearest place where its cells are free of other letters."""
    for dx, dy in _NUDGES:
        cells = [(x + dx + i, y + dy) for i in range(len(text))]
        if all((c, r) not in letters and 0 <= c < cols and 0 <= r < rows for c, r in cells):
            break
    else:
        cells = [(x + i, y) for i in range(len(text))]
    for cell, ch in zip(cells, text, strict=True):
        letters[cell] = (ch, style)


def _bonds(pen: ImageDraw.ImageDraw, item: Sketch, cell: Callable[[tuple[float, float]], tuple[float, float]]) -> None:
    """The bonds of one molecule on the dot grid; double and triple bonds as parallel lines."""

    def dot(point: tuple[float, float]) -> tuple[float, float]:
        x, y = cell(point)
        return (2 * x, 4 * y)

    bond = math.dist(dot((0.0, 0.0)), dot((1.0, 0.0)))
    width = 2 if bond >= 28 else 1  # long bonds drawn two dots thick, so that they do not fade into dots

    for a, b, order, centre in item.bonds:
        p, q = dot(item.points[a]), dot(item.points[b])
        length = math.dist(p, q) or 1.0
        gap = min(5.0, max(2.0, round(0.15 * length)))  # dots between the lines of a multiple bond
        nx, ny = (q[1] - p[1]) / length, -(q[0] - p[0]) / length  # unit normal
        pen.line([p, q], fill=1, width=width)
        if order == 2 and centre is not None:  # in a ring: the second line inside it, shortened
            ring, mid = dot(centre), ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
            side = gap if (ring[0] - mid[0]) * nx + (ring[1] - mid[1]) * ny > 0 else -gap
            sx, sy = (q[0] - p[0]) * 0.2, (q[1] - p[1]) * 0.2
            pen.line(
                [(p[0] + nx * side + sx, p[1] + ny * side + sy), (q[0] + nx * side - sx, q[1] + ny * side - sy)],
                fill=1,
                width=width,
            )
        elif order > 1:
            for offset in (gap, -gap) if order == 3 else (gap,):
                pen.line(
                    [(p[0] + nx * offset, p[1] + ny * offset), (q[0] + nx * offset, q[1] + ny * offset)], fill=1, width=width
                )


def _picture(dots: Image.Image, letters: dict[tuple[int, int], tuple[str, str]]) -> CellPicture:
    """The dots as braille, with the letters written over their cells, as runs of one style."""
    out = []
    for cy, line in enumerate(braille(dots)):
        runs: list[tuple[str, str]] = []
        for cx, ch in enumerate(line):
            text, style = letters.get((cx, cy), (ch, ""))
            if runs and runs[-1][1] == style:
                runs[-1] = (runs[-1][0] + text, style)
            else:
                runs.append((text, style))
        out.append(tuple(runs))
    return CellPicture(tuple(out))
