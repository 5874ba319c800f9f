"""DRUG pictures: the target and the reaction drawn by RDKit at the shape asked for; nothing for bad SMILES."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from pxp_tui.common.instance import Instance
from pxp_tui.tasks import get_task

PARACETAMOL = Instance(1, "demo", "paracetamol", input="CC(=O)Nc1ccc(O)cc1", meta={"name": "Paracetamol"})


def picture(data: bytes | None) -> Image.Image:
    assert data is not None
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("size", [(40, 20), (60, 16), (640, 320)])
def test_pictures_have_the_shape_of_the_area_they_are_shown_in(size) -> None:
    task = get_task("drug")
    for data in (task.draw_instance(PARACETAMOL, size), task.draw_prediction(PARACETAMOL, "CC(=O)Cl.Nc1ccc(O)cc1", size)):
        image = picture(data)
        assert image.width / image.height == pytest.approx(size[0] / size[1], rel=0.05)
        assert max(image.size) >= 480  # small areas are drawn large, then scaled down (lines stay visible)


def test_the_reaction_drawn_depends_on_the_reactants() -> None:
    task = get_task("drug")
    size = (300, 100)
    target = task.draw_instance(PARACETAMOL, size)
    chloride = task.draw_prediction(PARACETAMOL, "CC(=O)Cl.Nc1ccc(O)cc1", size)
    anhydride = task.draw_prediction(PARACETAMOL, "CC(=O)OC(C)=O.Nc1ccc(O)cc1", size)
    same_set = task.draw_prediction(PARACETAMOL, "Nc1ccc(O)cc1.CC(=O)Cl", size)
    assert len({target, chloride, anhydride}) == 3
    assert same_set == chloride  # canonical reactant sets draw the same


def test_unreadable_smiles_give_no_picture() -> None:
    task = get_task("drug")
    assert task.draw_prediction(PARACETAMOL, "C1CC", (100, 50)) is None
    assert task.draw_instance(Instance(2, "demo", "bad", input="not a molecule"), (100, 50)) is None
