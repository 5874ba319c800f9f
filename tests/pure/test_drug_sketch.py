"""Molecules drawn for half-cell terminals: bonds in braille dots, atom labels as letters at their atoms."""

from __future__ import annotations

import math

import pytest
from PIL import Image

from pxp_tui.common.instance import Instance
from pxp_tui.tasks import get_task
from pxp_tui.tasks.pictures import CellPicture, Surface, braille

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
FLUTAMIDE = "CC(C)C(=O)Nc1ccc([N+](=O)[O-])c(C(F)(F)F)c1"


def drawn(smiles: str, cols: int = 38, rows: int = 9, renderer: str = "halfcell") -> CellPicture:
    picture = get_task("drug").draw_instance(
        Instance(1, "demo", "m", input=smiles), Surface(cols, rows, (cols, 2 * rows), renderer)
    )
    assert isinstance(picture, CellPicture)
    return picture


def labels(picture: CellPicture) -> list[tuple[str, int, int]]:
    """The atom labels (the styled runs) as (text, column, row)."""
    found = []
    for y, row in enumerate(picture.rows):
        x = 0
        for text, style in row:
            if style:
                found.append((text, x, y))
            x += len(text)
    return found


def dots_beside(picture: CellPicture, text: str, x: int, y: int) -> bool:
    """Whether a cell next to the label has braille dots (a bond reaches it)."""
    lines = picture.lines
    for yy in range(y - 1, y + 2):
        for xx in range(x - 1, x + len(text) + 1):
            if 0 <= yy < len(lines) and 0 <= xx < len(lines[yy]) and "\u2801" <= lines[yy][xx] <= "\u28ff":
                return True
    return False


def test_braille_dots_map_to_their_patterns() -> None:
    dots = Image.new("1", (4, 8), 0)  # two cells across, two down
    dots.putpixel((0, 0), 1)  # top left of the first cell: dot 1
    dots.putpixel((3, 3), 1)  # bottom right of the second cell: dot 8
    dots.putpixel((1, 5), 1)  # second row of cells, right column, second dot: dot 5
    assert braille(dots) == ["\u2801\u2880", "\u2810\u2800"]


@pytest.mark.parametrize("cols, rows", [(38, 9), (12, 4), (56, 16), (158, 44)])
def test_the_drawing_has_exactly_the_cells_it_is_given(cols: int, rows: int) -> None:
    picture = drawn(PARACETAMOL, cols, rows)
    assert picture.height == rows
    assert all(len(line) == cols for line in picture.lines)


def test_paracetamol_keeps_its_atom_labels_next_to_their_bonds_and_where_the_atoms_are() -> None:
    picture = drawn(PARACETAMOL)
    found = labels(picture)
    texts = sorted(text for text, _, _ in found)
    assert texts in (["HN", "O", "OH"], ["HO", "NH", "O"], ["NH", "O", "OH"], ["HN", "HO", "O"])
    for text, x, y in found:
        assert dots_beside(picture, text, x, y), f"no bond reaches {text}"
    at = {text.replace("H", ""): (x, y) for text, x, y in found if text != "O"} | {
        "=O": next((x, y) for text, x, y in found if text == "O")
    }

    def distance(a: str, b: str) -> float:  # in cell widths: a cell is about twice as tall as wide
        (xa, ya), (xb, yb) = at[a], at[b]
        return math.hypot(xa - xb, 2 * (ya - yb))

    # the amide's O and N are neighbours; the phenol's O is across the ring from the N
    assert distance("N", "O") > 2 * distance("N", "=O")


def test_flutamide_shows_its_charged_nitro_group_and_its_fluorines() -> None:
    texts = [text for text, _, _ in labels(drawn(FLUTAMIDE, 60, 14))]
    assert "N⁺" in texts and "O⁻" in texts
    assert texts.count("F") == 3
    assert texts.count("O") == 2  # the amide's and the nitro's double-bonded oxygens
    assert "NH" in texts or "HN" in texts


@pytest.mark.parametrize("smiles, symbol", [("CCCCNC(=O)NS(=O)(=O)c1ccc(C)cc1", "S"), ("CC(NC(C)(C)C)C(=O)c1cccc(Cl)c1", "Cl")])
def test_sulfur_and_chlorine_are_labelled(smiles: str, symbol: str) -> None:
    assert symbol in [text for text, _, _ in labels(drawn(smiles, 50, 12, "unicode"))]


def test_the_reaction_reads_reactants_plus_reactants_arrow_target() -> None:
    task = get_task("drug")
    target = Instance(1, "demo", "paracetamol", input=PARACETAMOL)
    picture = task.draw_prediction(target, "CC(=O)Cl.Nc1ccc(O)cc1", Surface(60, 10, (60, 20), "halfcell"))
    assert isinstance(picture, CellPicture) and picture.height == 10
    found = labels(picture)
    plus = next(x for text, x, _ in found if text.strip() == "+")
    arrow = next(x for text, x, _ in found if text.strip() == "→")
    chlorine = next(x for text, x, _ in found if text == "Cl")
    assert chlorine < plus < arrow
    amine = next(x for text, x, _ in found if "N" in text and "H₂" in text)
    assert plus < amine < arrow  # 4-aminophenol between the + and the arrow


def test_fine_renderers_and_image_files_get_rdkit_pictures_and_coarse_ones_characters() -> None:
    task = get_task("drug")
    instance = Instance(1, "demo", "paracetamol", input=PARACETAMOL)
    for renderer in ("sixel", "tgp", "pixels"):
        assert task.draw_instance(instance, Surface(40, 10, (400, 200), renderer))[:8] == b"\x89PNG\r\n\x1a\n"
    assert task.draw_instance(instance, (400, 200))[:4] == b"\x89PNG"
    for renderer in ("halfcell", "unicode"):
        assert isinstance(task.draw_instance(instance, Surface(40, 10, (40, 20), renderer)), CellPicture)
    assert task.draw_instance(Instance(2, "demo", "bad", input="not a molecule"), Surface(40, 10, (40, 20), "halfcell")) is None
    assert task.draw_prediction(instance, "C1CC", Surface(40, 10, (40, 20), "halfcell")) is None


def test_a_drawing_is_the_same_for_the_same_arguments() -> None:
    """Drawing is a pure function of (task, instance, surface): it can be cached and prepared ahead."""
    assert drawn(FLUTAMIDE, 50, 12) == drawn(FLUTAMIDE, 50, 12)
    assert drawn(FLUTAMIDE, 50, 12) != drawn(FLUTAMIDE, 51, 12)


def test_every_demo_molecule_and_its_reaction_are_drawn_in_characters() -> None:
    """What a half-cell terminal shows at each session of the bundled demo (the app's runs in tests/ go through
    a few of its 23 molecules): the target and the reaction from its reference reactants, bonds in braille."""
    task = get_task("drug")
    rows = task.demo_rows()
    assert len(rows) == 23
    for number, row in enumerate(rows, start=1):
        instance = Instance(number, "demo", row.key, input=row.input, reference_prediction=row.reference_prediction)
        target = task.draw_instance(instance, Surface(38, 9, (38, 18), "halfcell"))
        reaction = task.draw_prediction(instance, row.reference_prediction, Surface(76, 12, (76, 24), "halfcell"))
        for picture in (target, reaction):
            assert isinstance(picture, CellPicture), row.key
            assert any("\u2801" <= c <= "\u28ff" for line in picture.lines for c in line), row.key
