"""The splits of the papers and of the reference scripts, imported from the published data (../shared/data/interact).

The reference's DRUG split is ``retro.csv`` shuffled by pandas' ``data.sample(frac=1, random_state=42)``, then
train ``[:int(0.1 n)]``, val ``[int(0.6 n):int(0.8 n)]``, test ``[int(0.8 n):]`` (src/interact.py). The row
numbers below were computed once with pandas 3.1.1 from that call (0-based data rows of retro.csv): they are the
reference's own split, not pxp's output.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks.drug import chem
from pxp_tui.tasks.splits import reference_order

TRAIN = [68, 22, 72, 73, 0, 26, 40, 42, 10]
VAL = [56, 94, 54, 43, 50, 64, 46, 65, 61, 93, 75, 41, 58, 48, 88, 57, 32, 89, 59]
TEST = [63, 80, 37, 29, 1, 52, 21, 2, 23, 87, 74, 86, 82, 20, 60, 71, 14, 92, 51]


def _targets(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        return [chem.canonical(row["input"]) for row in csv.DictReader(f)]


def _split(board: Blackboard, dataset: str, split: str) -> list[str]:
    return [chem.canonical(i.input) for i in board.instances(board.instance_ids(dataset, split))]


def test_the_permutation_is_the_one_pandas_sample_draws() -> None:
    order = reference_order(95)
    assert (order[:9], order[57:76], order[76:]) == (TRAIN, VAL, TEST)


def test_pandas_draws_the_same_where_it_is_installed() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"row": range(95)})
    assert list(frame.sample(frac=1, random_state=42)["row"]) == reference_order(95)


def test_the_reference_drug_split_is_9_19_19_in_its_order_with_its_few_shot_examples(
    capsys, shared_data: Path, db_path: Path
) -> None:
    code, out, err = pxp(capsys, "import", "drug", str(shared_data / "retro.csv"), "--name", "interact-drug",
                         "--reference-split", "--few-shot", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path))  # fmt: skip
    assert code == 0, err
    assert "(train 9, val 19, test 19, shots 5; 0 images; 48 rows left out, as the reference leaves them)" in out
    targets = _targets(shared_data / "retro.csv")
    shots = _targets(shared_data / "few_shot_DRUG.csv")
    with Blackboard.open(db_path, create=False) as board:
        assert _split(board, "interact-drug", "train") == [targets[i] for i in TRAIN]  # the sessions' order too
        assert sorted(_split(board, "interact-drug", "val")) == sorted(targets[i] for i in VAL)
        assert sorted(_split(board, "interact-drug", "test")) == sorted(targets[i] for i in TEST)
        assert _split(board, "interact-drug", "shots") == shots


def test_the_reference_rad_split_is_the_two_files_20_and_27(capsys, shared_data: Path, db_path: Path) -> None:
    db = str(db_path)
    code, out, err = pxp(capsys, "import", "rad", str(shared_data / "train_xray_data.csv"), "--name", "interact-rad",
                         "--split", "train", "--db", db)  # fmt: skip
    assert code == 0 and "(train 20; 20 images)" in out, err
    code, out, err = pxp(capsys, "import", "rad", str(shared_data / "val_xray_data.csv"), "--name", "interact-rad",
                         "--split", "val", "--append", "--db", db)  # fmt: skip
    assert code == 0 and "(val 27; 27 images)" in out, err
    with Blackboard.open(db_path, create=False) as board:
        train = board.instances(board.instance_ids("interact-rad", "train"))
        val = board.instances(board.instance_ids("interact-rad", "val"))
    assert [i.key for i in train][:5] == ["case_1", "case_2", "case_4", "case_11", "case_20"]
    assert (len(train), len(val)) == (20, 27)
    assert {i.key for i in train}.isdisjoint({i.key for i in val})


def test_the_papers_four_per_disease_from_both_files_not_from_the_training_file(capsys, shared_data: Path, db_path: Path) -> None:
    train, val = str(shared_data / "train_xray_data.csv"), str(shared_data / "val_xray_data.csv")
    code, _, err = pxp(capsys, "import", "rad", train, "--per-label", "4", "--name", "few", "--db", str(db_path))
    assert code == 2
    assert "these labels have fewer rows (Pleural Effusion 2, Pneumonia 1); nothing imported" in err
    code, out, err = pxp(
        capsys, "import", "rad", train, val, "--per-label", "4", "--name", "interact-rad-20", "--db", str(db_path)
    )
    assert code == 0 and "imported 20 rad instances (train 20; 20 images)" in out, err
    with Blackboard.open(db_path, create=False) as board:
        rows = board.instances(board.instance_ids("interact-rad-20", "train"))
    labels = [i.reference_prediction for i in rows]
    assert {label: labels.count(label) for label in labels} == dict.fromkeys(
        ["Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax"], 4
    )
    first_pneumonia = [i.key for i in rows if i.reference_prediction == "Pneumonia"]
    assert first_pneumonia[0] == "case_145"  # the training file's only one, then the validation file's in order
