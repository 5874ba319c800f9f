"""``pxp import drug --papers-selection``: the papers' DRUG molecules, "a molecular weight between 150g/mol - 300g/mol
and at least one aromatic ring" (001 Sec. 4.1.2, 002 App. B), kept by RDKit's weight and aromaticity."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard

ROWS = {
    "CC(=O)Nc1ccc(O)cc1": True,  # paracetamol, 151.2 g/mol, a benzene ring
    "c1ccccc1": False,  # 78.1 g/mol
    "OC1CCC(CCCCCC)CC1": False,  # 184.3 g/mol, no aromatic ring
    "CC(C)Cc1ccc(C(C)C(=O)O)cc1": True,  # ibuprofen, 206.3 g/mol
    "O=C(O)c1ccccc1Oc1ccc(Oc2ccc(Oc3ccccc3)cc2)cc1": False,  # 398.4 g/mol
}


def test_the_selection_keeps_the_papers_weights_with_an_aromatic_ring(capsys, tmp_path: Path, db_path: Path) -> None:
    csv = tmp_path / "molecules.csv"
    csv.write_text("output,input,explanation\n" + "".join(f"CC.O,{smiles},a step\n" for smiles in ROWS), encoding="utf-8")
    code, out, err = pxp(capsys, "import", "drug", csv, "--papers-selection", "--db", db_path)
    assert code == 0, err
    assert (
        "imported 2 drug instances" in out and "3 left out by the papers' selection, 150-300 g/mol with an aromatic ring" in out
    )
    with Blackboard.open(db_path, create=False) as board:
        kept = [i.input for i in board.instances(board.instance_ids("molecules"))]
    assert kept == [smiles for smiles, selected in ROWS.items() if selected]


def test_the_selection_is_drugs_only(capsys, tmp_path: Path, db_path: Path) -> None:
    code, _, err = pxp(capsys, "import", "rad", tmp_path / "cases.csv", "--papers-selection", "--db", db_path)
    assert code == 2 and "--papers-selection is the papers' choice of DRUG molecules" in err
    assert not db_path.exists()


def test_of_the_references_retro_csv_31_of_95_meet_it_and_1_of_its_9_training_molecules(
    capsys, shared_data: Path, db_path: Path
) -> None:
    """The counts docs/tasks-and-data.md and docs/FIDELITY.md (row dataset-drug) state."""
    code, out, err = pxp(capsys, "import", "drug", shared_data / "retro.csv", "--papers-selection", "--db", db_path)
    assert code == 0, err
    assert "imported 31 drug instances (train 31; 0 images; 64 left out by the papers' selection" in out
    code, out, err = pxp(capsys, "import", "drug", shared_data / "retro.csv", "--name", "split", "--reference-split",
                         "--papers-selection", "--db", db_path)  # fmt: skip
    assert code == 0, err
    assert "(train 1, val 9, test 4; 0 images; 48 rows left out, as the reference leaves them; 33 left out by" in out
