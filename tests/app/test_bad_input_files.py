"""Bad dataset files for ``pxp import``: encodings, line ends, huge cells, many rows, images that are not
what they claim or lie outside the images folder. Each refusal is one line, exit code 2, and the
blackboard byte for byte as it was."""

from __future__ import annotations

import io
import os
import tracemalloc
from pathlib import Path

import pytest

from pxp_harness.big_files import EXPLANATION, drug_csv, png, rad_csv
from pxp_harness.cli_helpers import digest, pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.progress import progress_bar

MOLS = "key,name,input,output,explanation\n"


@pytest.fixture
def board(db_path: Path, capsys) -> Path:
    """A blackboard holding one dataset already, so that 'unchanged' means something."""
    csv = db_path.parent / "first.csv"
    csv.write_text(MOLS + "a,,CCOC(C)=O,CC(=O)Cl.OCC,Ester.\n", encoding="utf-8")
    code, _, err = pxp(capsys, "import", "drug", csv, "--db", db_path)
    assert code == 0, err
    return db_path


def refused(capsys, db: Path, *argv: object) -> str:
    """The one line ``pxp import ARGV`` prints when it refuses, having checked it changed nothing."""
    before = digest(db)
    code, out, err = pxp(capsys, "import", *argv, "--db", db)
    assert code == 2 and not out
    assert len(err.splitlines()) == 1 and err.startswith("pxp: error: "), err
    assert digest(db) == before
    return err


def instances(db: Path, dataset: str) -> list:
    with Blackboard.open(db, create=False, readonly=True) as opened:
        return opened.instances(opened.instance_ids(dataset))


# -- text: encodings, line ends, separators, cells ---------------------------------------------------
@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"], ids=["crlf", "cr", "lf"])
def test_utf8_with_a_byte_order_mark_and_any_line_ends_is_read(capsys, tmp_path: Path, db_path: Path, newline: str) -> None:
    csv = tmp_path / "mols.csv"
    text = newline.join(
        [MOLS.strip(), "a,Ester,CCOC(C)=O,CC(=O)Cl.OCC,Ester — café.", "b,,CC(=O)Nc1ccccc1,CC(=O)Cl.Nc1ccccc1,Amide."]
    )
    csv.write_bytes(b"\xef\xbb\xbf" + (text + newline).encode("utf-8"))
    code, out, err = pxp(capsys, "import", "drug", csv, "--db", db_path)
    assert code == 0, err
    assert "imported 2 drug instances" in out
    first, second = instances(db_path, "mols")
    assert (first.key, first.name, first.reference_explanation) == ("a", "Ester", "Ester — café.")
    assert second.reference_explanation == "Amide."  # no stray carriage return


def test_latin1_bytes_are_refused_at_their_line_and_read_with_encoding(capsys, tmp_path: Path, board: Path) -> None:
    """An Excel 'CSV' export from Windows: cp1252 text, semicolons; one command with --encoding reads it."""
    csv = tmp_path / "excel.csv"
    rows = ["key;name;input;output;explanation", "b;Ester;CCOC(C)=O;CC(=O)Cl.OCC;Acylation \x93cold\x94 at 0 \xb0C, caf\xe9."]
    csv.write_bytes("\r\n".join(rows).encode("latin-1") + b"\r\n")
    err = refused(capsys, board, "drug", csv)
    assert "line 2: byte 0x93 (column 42) is not UTF-8 text" in err
    assert "--encoding cp1252" in err
    code, _out, err = pxp(capsys, "import", "drug", csv, "--db", board, "--encoding", "cp1252")
    assert code == 0, err
    (row,) = instances(board, "excel")
    assert row.reference_explanation == "Acylation “cold” at 0 °C, café."


def test_an_unknown_encoding_is_a_usage_error(capsys, tmp_path: Path, board: Path) -> None:
    err = refused(capsys, board, "drug", tmp_path / "x.csv", "--encoding", "klingon")
    assert "unknown encoding 'klingon'" in err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfek\x00e\x00y\x00", "line 1: UTF-16 text: pass --encoding utf-16"),
        (b"PK\x03\x04\x14\x00\x06\x00", "an Excel workbook (or another zip file), not CSV text"),
        (MOLS.encode() + b'b,,CCO,CC.O,"never closed\nc,,CCC,CC.C,x\n', "line 2: a quote opened on this line is never closed"),
        (MOLS.encode() + b"b,,CCO,CC\x00.O,x\n", "line 2: a NUL byte: not text"),
        (b"", "line 1: the file is empty"),
    ],
    ids=["utf-16", "xlsx", "open-quote", "nul", "empty"],
)
def test_files_that_are_not_csv_text_are_refused(capsys, tmp_path: Path, board: Path, content: bytes, problem: str) -> None:
    csv = tmp_path / "x.csv"
    csv.write_bytes(content)
    assert problem in refused(capsys, board, "drug", csv)


def test_a_10_mb_cell_is_refused_at_its_line_and_a_200_kb_one_is_read(capsys, tmp_path: Path, board: Path) -> None:
    csv = tmp_path / "huge.csv"
    csv.write_text(MOLS + "b,,CCO,CC.O,ok\n" + 'c,,CCC,CC.C,"' + "x" * 10_000_000 + '"\n', encoding="utf-8")
    err = refused(capsys, board, "drug", csv)
    assert "line 3: a cell longer than 1,048,576 characters (is a quote left open on this line?)" in err
    assert len(err) < 1000
    csv.write_text(MOLS + "b,,CCO,CC.O," + "y" * 200_000 + "\n", encoding="utf-8")  # above Python's default limit
    code, _, err = pxp(capsys, "import", "drug", csv, "--db", board)
    assert code == 0, err
    assert len(instances(board, "huge")[0].reference_explanation) == 200_000


def test_a_file_with_thousands_of_problems_lists_twenty_and_counts_the_rest(capsys, tmp_path: Path, board: Path) -> None:
    csv = tmp_path / "bad.csv"
    csv.write_text(MOLS + "".join(f"k{i},,C1CC,CC,x\n" for i in range(3000)), encoding="utf-8")
    err = refused(capsys, board, "drug", csv)
    assert "nothing imported, 3,000 problems: line 2: invalid SMILES" in err
    assert err.count("invalid SMILES") == 20 and "; and 2,980 more" in err


@pytest.mark.slow
def test_50000_rows_are_imported_in_one_transaction(capsys, tmp_path: Path, db_path: Path) -> None:
    csv = drug_csv(tmp_path / "many.csv", 50_000, newline="\r\n")
    code, out, err = pxp(capsys, "import", "drug", csv, "--db", db_path)
    assert code == 0, err
    assert "imported 50000 drug instances (train 50000; 0 images)" in out
    with Blackboard.open(db_path, create=False, readonly=True) as opened:
        assert len(opened.instance_ids("many")) == 50_000
        last = opened.instances(opened.instance_ids("many")[-1:])[0]
    assert last.key == "m49999" and last.reference_explanation == EXPLANATION


def test_a_bad_last_row_of_thousands_leaves_the_blackboard_unchanged(capsys, tmp_path: Path, board: Path) -> None:
    csv = drug_csv(tmp_path / "many.csv", 2_000)
    with csv.open("a", encoding="utf-8") as out:
        out.write("last,,C1CC,CC,x,train\n")
    err = refused(capsys, board, "drug", csv)
    assert "nothing imported, 1 problem: line 2002: invalid SMILES in input: 'C1CC'" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_import_draws_a_progress_bar_on_a_terminal_only(capsys, monkeypatch, tmp_path: Path, db_path: Path) -> None:
    csv = drug_csv(tmp_path / "many.csv", 1_000)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = pxp(capsys, "import", "drug", csv, "--db", db_path)[0]
    assert code == 0
    drawn = terminal.getvalue()
    assert "checking" in drawn and "storing" in drawn and "100%" in drawn
    with progress_bar(io.StringIO()) as report:  # not a terminal (a pipe, a log file): no bar at all
        assert report is None


# -- images -------------------------------------------------------------------------------------------
def rad_file(folder: Path, *images: str) -> Path:
    csv = folder / "cases.csv"
    lines = [f"case{i},Pneumonia,{image},Patchy opacity." for i, image in enumerate(images)]
    csv.write_text("key,label,image,report\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return csv


@pytest.fixture
def xrays(tmp_path: Path) -> Path:
    folder = tmp_path / "xrays"
    folder.mkdir()
    png(folder / "good.png", 64, 64)
    return folder


@pytest.mark.parametrize(
    "image",
    ["../../../../../../etc/passwd", "/etc/hostname", "link.png", "sub/../../outside.png"],
    ids=["dot-dot", "absolute", "symlink", "dot-dot-inside"],
)
def test_an_image_path_leading_outside_the_images_folder_is_refused(capsys, xrays: Path, board: Path, image: str) -> None:
    png(xrays.parent / "outside.png", 8, 8)
    (xrays / "link.png").symlink_to(xrays.parent / "outside.png")
    err = refused(capsys, board, "rad", rad_file(xrays, "good.png", image))
    assert f"line 3: image {image!r} leads outside the images folder {xrays}" in err and "refused" in err


def test_absolute_and_nested_paths_inside_the_images_folder_are_read(capsys, xrays: Path, db_path: Path) -> None:
    (xrays / "sub").mkdir()
    png(xrays / "sub" / "deep.png", 32, 32)
    (xrays / "alias.png").symlink_to(xrays / "sub" / "deep.png")  # a link that stays inside is fine
    csv = rad_file(xrays, str(xrays / "good.png"), "data/xrays/sub/deep.png", "alias.png")
    code, out, err = pxp(capsys, "import", "rad", csv, "--db", db_path)
    assert code == 0, err
    assert "imported 3 rad instances" in out


def test_an_image_that_is_not_an_image_is_a_problem_at_its_line(capsys, xrays: Path, board: Path) -> None:
    (xrays / "notes.png").write_text("this is a text file named .png\n", encoding="utf-8")
    os.mkfifo(xrays / "pipe.png")  # not a regular file: never opened (it would block)
    err = refused(capsys, board, "rad", rad_file(xrays, "good.png", "notes.png", "pipe.png"))
    assert "line 3: image 'notes.png' cannot be read: not an image file Pillow can read" in err
    assert "line 4: image not found: 'pipe.png'" in err


@pytest.mark.parametrize(
    ("size", "said"),
    [((10_000, 10_000), "10000 x 10000 pixels (100 megapixels)"), ((20_000, 10_000), "more than 179 megapixels")],
    ids=["100MP", "200MP"],
)
def test_a_huge_image_is_refused_from_its_header_without_a_warning(capsys, xrays: Path, board: Path, size, said) -> None:
    png(xrays / "huge.png", *size)
    err = refused(capsys, board, "rad", rad_file(xrays, "good.png", "huge.png"))
    assert f"line 3: image 'huge.png' is too large: {said}: pxp takes images up to 50 megapixels" in err


def test_a_20_megapixel_radiograph_is_imported(capsys, xrays: Path, db_path: Path) -> None:
    png(xrays / "big.png", 4000, 5000)
    code, _, err = pxp(capsys, "import", "rad", rad_file(xrays, "big.png"), "--db", db_path)
    assert code == 0, err
    (case,) = instances(db_path, "cases")
    assert (case.meta["width"], case.meta["height"]) == (4000, 5000)
    assert case.image == (xrays / "big.png").read_bytes()


def test_importing_many_images_holds_one_at_a_time(capsys, tmp_path: Path) -> None:
    """Peak memory (Python's own allocations) does not grow with the number of images: 4 vs 24 images of 1 MB."""
    peaks = []
    for count in (4, 24):
        csv = rad_csv(tmp_path / f"x{count}", count, side=1000, noise=True)
        tracemalloc.start()
        code, _, err = pxp(capsys, "import", "rad", csv, "--db", tmp_path / f"{count}.db")
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert code == 0, err
    assert peaks[1] - peaks[0] < 5 * 2**20, peaks  # holding every image would add 20 MB


def test_an_image_changed_between_the_check_and_the_write_rolls_the_import_back(
    capsys, monkeypatch, xrays: Path, board: Path
) -> None:
    png(xrays / "second.png", 64, 64, shade=9)
    opened = Blackboard.open.__func__  # type: ignore[attr-defined]

    def open_then_change(cls, path, *args, **kwargs):
        png(xrays / "second.png", 64, 64, shade=200)
        return opened(cls, path, *args, **kwargs)

    monkeypatch.setattr(Blackboard, "open", classmethod(open_then_change))
    err = refused(capsys, board, "rad", rad_file(xrays, "good.png", "second.png"))
    assert f"{xrays / 'second.png'} changed during the import; nothing imported" in err
