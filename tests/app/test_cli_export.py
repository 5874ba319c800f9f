"""``pxp export``: the readable tables (runs, sessions, flat messages, instances), any table or view by name,
one run alone, pictures only when asked, formats that parse (a spreadsheet read back with openpyxl)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import digest, offline_run, pxp
from pxp_tui.blackboard import Blackboard


@pytest.fixture
def run_db(db_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    offline_run(capsys, db_path, "--limit", "4")
    return db_path


def counts(db: Path) -> dict[str, int]:
    with Blackboard.open(db, create=False, readonly=True) as board:
        names = board.db.table_names() + board.db.view_names()
        return {n: board.db.execute(f"SELECT COUNT(*) FROM [{n}]").fetchone()[0] for n in names}


def test_csv_writes_the_readable_tables_with_their_row_counts(run_db: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "csv"
    code, printed, _ = pxp(capsys, "export", "--db", run_db, "--format", "csv", "--out", out)
    assert code == 0
    raw = counts(run_db)
    expected = {"runs": raw["runs"], "sessions": raw["data"], "messages": raw["messages"], "instances": raw["instances"]}
    assert {p.name for p in out.iterdir()} == {f"{name}.csv" for name in expected}  # no images, no data.csv
    assert expected["messages"] > 0 and expected["sessions"] == 4
    for name, rows in expected.items():
        with (out / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
            assert len(list(csv.DictReader(handle))) == rows, name
        assert f"{rows:>9,} rows" in next(line for line in printed.splitlines() if line.startswith(name + " "))


def test_every_table_and_view_of_the_file_can_be_named(run_db: Path, tmp_path: Path, capsys) -> None:
    raw = counts(run_db)
    names = [n for n in raw if n not in ("messages", "runs", "instances", "images")]  # those four: the readable ones
    argv = [a for n in names for a in ("--table", n)]
    code, _, err = pxp(capsys, "export", "--db", run_db, "--format", "csv", "--out", tmp_path / "all", *argv)
    assert code == 0, err
    for name in names:
        with (tmp_path / "all" / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
            assert len(list(csv.DictReader(handle))) == raw[name], name


def test_json_and_ndjson_parse_and_keep_every_row(run_db: Path, tmp_path: Path, capsys) -> None:
    raw = counts(run_db)
    expected = {"runs": raw["runs"], "sessions": raw["data"], "messages": raw["messages"], "instances": raw["instances"]}
    pxp(capsys, "export", "--db", run_db, "--format", "json", "--out", tmp_path / "j")
    pxp(capsys, "export", "--db", run_db, "--format", "ndjson", "--out", tmp_path / "n")
    for name, rows in expected.items():
        parsed = json.loads((tmp_path / "j" / f"{name}.json").read_text(encoding="utf-8"))
        assert isinstance(parsed, list) and len(parsed) == rows
        lines = (tmp_path / "n" / f"{name}.ndjson").read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == parsed
    messages = json.loads((tmp_path / "j" / "messages.json").read_text(encoding="utf-8"))
    assert {m["tag"] for m in messages} <= {"INIT", "RATIFY", "REFUTE", "REVISE", "REJECT"}


def test_images_survive_the_json_export(tmp_path: Path, capsys) -> None:
    db = tmp_path / "img.db"
    with Blackboard.open(db) as board:
        from pxp_tui.tasks.base import DatasetRow

        board.add_dataset("x", "rad", [DatasetRow("a", "train", "", "Pneumonia", "r", image=b"\x89PNG\r\n\x1a\n-bytes")])
    pxp(capsys, "export", "--db", db, "--format", "json", "--out", tmp_path / "j", "--table", "images")
    (image,) = json.loads((tmp_path / "j" / "images.json").read_text())
    import base64

    assert base64.b64decode(image["data"]["encoded"]) == b"\x89PNG\r\n\x1a\n-bytes"


def test_markdown_of_one_view_to_standard_output(run_db: Path, capsys) -> None:
    code, out, err = pxp(capsys, "export", "--db", run_db, "--format", "markdown", "--table", "run_intelligibility", "--out", "-")
    assert code == 0 and "run_intelligibility: 1 rows" in err
    header, rule, row = out.strip().splitlines()
    assert header.startswith("| run_id") and set(rule) <= {"|", "-", ":"} and row.split("|")[1].strip() == "1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "csv", "--table", "nope"], "no table or view 'nope'"),
        (["--format", "xml"], "invalid choice"),
        (["--format", "csv", "--out", "-"], "name it with a single --table"),
        (["--format", "csv", "--run", "99"], "no run 99"),
        (["--format", "xlsx", "--table", "messages", "--out", "-"], "xlsx is written to files"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_changes(run_db: Path, tmp_path: Path, capsys, argv, message) -> None:
    before = digest(run_db)
    code, _out, err = pxp(capsys, "export", "--db", run_db, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert digest(run_db) == before and not (tmp_path / "export").exists()


def test_a_missing_blackboard_is_not_created(tmp_path: Path, capsys) -> None:
    code, _, err = pxp(capsys, "export", "--db", tmp_path / "none.db", "--format", "csv", "--out", tmp_path / "o")
    assert code == 2 and "no blackboard" in err
    assert not (tmp_path / "none.db").exists() and not (tmp_path / "o").exists()
