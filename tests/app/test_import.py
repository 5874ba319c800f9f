"""``pxp import`` and ``pxp datasets``: the papers' CSVs, pxp's own format, validation, splits."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from pxp_harness.cli_helpers import digest, pxp
from pxp_tui.blackboard import Blackboard


def test_the_papers_three_csvs_give_20_27_and_95_instances_with_images_stored(capsys, shared_data: Path, db_path: Path) -> None:
    for task, name in (("rad", "train_xray_data"), ("rad", "val_xray_data"), ("drug", "retro")):
        code, out, err = pxp(capsys, "import", task, str(shared_data / f"{name}.csv"), "--db", str(db_path))
        assert code == 0, err
    code, out, _ = pxp(capsys, "datasets", "--db", str(db_path), "--json")
    found = {d["name"]: d for d in json.loads(out)}
    assert {n: (d["task"], d["instances"], d["images"]) for n, d in found.items()} == {
        "train_xray_data": ("rad", 20, 20),
        "val_xray_data": ("rad", 27, 27),
        "retro": ("drug", 95, 0),
    }
    with Blackboard.open(db_path, create=False) as board:
        # the file alone is enough: the stored image is the original file, byte for byte
        first = board.instances(board.instance_ids("train_xray_data"))[0]
        assert first.key == "case_1" and first.reference_prediction == "Atelectasis"
        assert first.image == (shared_data / "xrays" / "Case 1 Image - Lateral.png").read_bytes()
        assert first.image_mime == "image/png"
        # case_20 is in the papers' file twice, under two labels: both kept, one image stored
        keys = {i.key: i for i in board.instances(board.instance_ids("train_xray_data"))}
        assert keys["case_20"].reference_prediction == "Atelectasis"
        assert keys["case_20#2"].reference_prediction == "Pneumothorax"
        assert keys["case_20"].image == keys["case_20#2"].image
        drug = board.instances(board.instance_ids("retro"))[0]
        assert drug.input.startswith("N#Cc1ccccc1Oc1ccc(N(Cc2cccnc2)S(=O)")
    code, out, _ = pxp(capsys, "datasets", "--db", str(db_path))
    assert "train_xray_data" in out and "95" in out


def test_splits_by_file_into_one_dataset(capsys, shared_data: Path, db_path: Path) -> None:
    pxp(
        capsys,
        "import",
        "rad",
        str(shared_data / "train_xray_data.csv"),
        "--db",
        str(db_path),
        "--name",
        "xray",
        "--split",
        "train",
    )
    code, out, err = pxp(
        capsys,
        "import",
        "rad",
        str(shared_data / "val_xray_data.csv"),
        "--db",
        str(db_path),
        "--name",
        "xray",
        "--split",
        "val",
        "--append",
    )
    assert code == 0, err
    assert "added 27 rad instances (val 27; 27 images)" in out
    with Blackboard.open(db_path, create=False) as board:
        assert len(board.instance_ids("xray", "train")) == 20 and len(board.instance_ids("xray", "val")) == 27


def test_a_seeded_split_is_stratified_and_repeatable(capsys, shared_data: Path, tmp_path: Path) -> None:
    splits = []
    for attempt in range(2):
        db = tmp_path / f"{attempt}.db"
        code, _, err = pxp(
            capsys,
            "import",
            "rad",
            str(shared_data / "val_xray_data.csv"),
            "--db",
            str(db),
            "--seeded-split",
            "50/25/25",
            "--seed",
            "7",
        )
        assert code == 0, err
        with Blackboard.open(db, create=False) as board:
            rows = board.db.query("SELECT key, split, reference_prediction FROM instances ORDER BY key")
            splits.append([(r["key"], r["split"], r["reference_prediction"]) for r in rows])
    assert splits[0] == splits[1]
    by_label = Counter((label, split) for _, split, label in splits[0])
    for label in {label for _, _, label in splits[0]}:
        assert by_label[(label, "train")] >= 1  # every condition is seen in training
    total = Counter(split for _, split, _ in splits[0])
    assert all(abs(total[split] - share * 27) < 1 for split, share in (("train", 0.5), ("val", 0.25), ("test", 0.25)))


def broken_rad_csv(tmp_path: Path, shared_data: Path) -> Path:
    """pxp's RAD format with problems on lines 3 (image missing), 4 (broken image), 5 (label), 7 (duplicate)."""
    folder = tmp_path / "cases"
    folder.mkdir()
    shutil.copy(shared_data / "xrays" / "Case 3 Image.png", folder / "good.png")
    (folder / "broken.png").write_bytes((shared_data / "xrays" / "Case 3 Image.png").read_bytes()[:3000])
    csv = folder / "cases.csv"
    csv.write_text(
        "key,label,split,image,report\n"
        "a,effusion,train,good.png,Blunted costophrenic angle.\n"
        "b,Pneumonia,train,missing.png,Patchy opacity.\n"
        "c,Pneumonia,train,broken.png,Patchy opacity.\n"
        "d,Fracture,train,good.png,A rib fracture.\n"
        "e,Cardiomegaly,holdout,good.png,Large heart.\n"
        "a,Cardiomegaly,train,good.png,Large heart.\n",
        encoding="utf-8",
    )
    return csv


def test_every_problem_is_reported_with_its_line_and_nothing_is_written(
    capsys, shared_data: Path, tmp_path: Path, db_path: Path
) -> None:
    pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path))
    before = digest(db_path)
    code, out, err = pxp(capsys, "import", "rad", str(broken_rad_csv(tmp_path, shared_data)), "--db", str(db_path))
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert "nothing imported, 5 problems" in err
    assert "line 3: image not found: 'missing.png'" in err
    assert "line 4: image 'broken.png' cannot be read" in err
    assert "line 5: label 'Fracture' is not one of" in err
    assert "line 6: split 'holdout' is not one of train, val, test" in err
    assert "line 7: duplicate key 'a' (first on line 2)" in err
    assert digest(db_path) == before


def test_a_missing_column_names_line_1_and_leaves_the_file_unchanged(
    capsys, shared_data: Path, tmp_path: Path, db_path: Path
) -> None:
    pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path))
    before = digest(db_path)
    csv = tmp_path / "no_report.csv"
    lines = (shared_data / "train_xray_data.csv").read_text(encoding="utf-8").splitlines()
    csv.write_text("case,label,label_short,img_path,link\n" + "\n".join(lines[1:3]) + "\n", encoding="utf-8")
    code, _, err = pxp(capsys, "import", "rad", str(csv), "--images", str(shared_data), "--db", str(db_path))
    assert code == 2
    assert "line 1: missing column 'report'" in err
    assert digest(db_path) == before


def test_a_failed_import_creates_no_blackboard(capsys, shared_data: Path, tmp_path: Path, db_path: Path) -> None:
    code, _, _ = pxp(capsys, "import", "rad", str(broken_rad_csv(tmp_path, shared_data)), "--db", str(db_path))
    assert code == 2 and not db_path.exists()


def test_drug_rows_are_checked_with_rdkit(capsys, tmp_path: Path, db_path: Path) -> None:
    csv = tmp_path / "mols.csv"
    csv.write_text(
        "output,input,explanation\n"
        "CC(=O)Cl.OCC,CCOC(C)=O,Ester from the acid chloride.\n"
        "CC(=O)Cl.OCC,C1CC,Broken ring.\n"
        ",,\n"
        "CC(=O)Cl.Nc1ccccc1,CC(=O)Nc1ccccc1,\n"
        "CC(=O)Cl.OCC,O=C(C)OCC,The same ester again.\n",
        encoding="utf-8",
    )
    code, _, err = pxp(capsys, "import", "drug", str(csv), "--db", str(db_path))
    assert code == 2
    assert "line 3: invalid SMILES in input: 'C1CC'" in err
    assert "line 4: empty row" in err
    assert "line 5: empty explanation" in err
    assert "line 6: duplicate target 'CCOC(C)=O' (first on line 2)" in err
    assert not db_path.exists()


def test_appending_keys_already_in_the_dataset_is_refused_unchanged(capsys, shared_data: Path, db_path: Path) -> None:
    csv = str(shared_data / "train_xray_data.csv")
    pxp(capsys, "import", "rad", csv, "--db", str(db_path), "--name", "xray")
    before = digest(db_path)
    code, _, err = pxp(capsys, "import", "rad", csv, "--db", str(db_path), "--name", "xray", "--append")
    assert code == 2 and "already has instances with the keys 'case_1'" in err
    code, _, err = pxp(
        capsys, "import", "drug", str(shared_data / "retro.csv"), "--db", str(db_path), "--name", "xray", "--append"
    )
    assert code == 2 and "is for the rad task, not drug" in err
    code, _, err = pxp(capsys, "import", "rad", csv, "--db", str(db_path), "--name", "xray")
    assert code == 2 and "already exists" in err
    assert digest(db_path) == before


def test_a_run_on_an_imported_dataset(capsys, shared_data: Path, db_path: Path) -> None:
    pxp(capsys, "import", "drug", str(shared_data / "few_shot_DRUG.csv"), "--db", str(db_path), "--name", "few")
    code, out, err = pxp(capsys, "run", "--headless", "--task", "drug", "--dataset", "few", "--db", str(db_path))
    assert code == 0, err
    assert "drug on few" in out and out.count("\nsession ") == 5
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--dataset", "few", "--db", str(db_path))
    assert code == 2 and "is for the drug task, not rad" in err
