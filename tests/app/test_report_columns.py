"""``pxp report --column LABEL=RUNS``: the papers' column names (RAD, DRUG, DRUG-h1, DRUG-h2), and never a column
pooling runs of different datasets or configurations."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.boards import EVERY_CLASS, scripted_run
from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard

SCRIPTS = [tags for _, tags in EVERY_CLASS]


def header(out: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith("| Count"))
    return [c.strip() for c in line.strip("|").split("|")][2:]


async def papers_board(db: Path) -> None:
    """Runs 1-3: an experiment "E" of three repetitions; 4: h1 on the demo; 5: h2 on the demo; 6: h1 on another
    dataset, with fewer sessions (the pooling the report must never do)."""
    with Blackboard.open(db) as board:
        for cut in (8, 6, 3):
            await scripted_run(board, SCRIPTS[:cut], experiment="E")
        await scripted_run(board, SCRIPTS[:5], human="h1")
        await scripted_run(board, SCRIPTS[2:], human="h2")
        await scripted_run(board, SCRIPTS[:3], human="h1", dataset="other-drug")


async def test_columns_carry_the_researchers_names_in_the_order_given(db_path: Path, capsys) -> None:
    await papers_board(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--column", "DRUG=E", "--column", "DRUG-h1=run 4",
                         "--column", "DRUG-h2=5")  # fmt: skip
    assert code == 0, err
    assert header(out) == ["DRUG", "DRUG-h1", "DRUG-h2"]
    total = next(line for line in out.splitlines() if line.startswith("| Total sessions"))
    assert [c.strip() for c in total.strip("|").split("|")][2:] == ["6 [3, 8]", "5", "6"]  # E's median [min, max]
    code, csv_out, _ = pxp(capsys, "report", "--db", db_path, "--column", "RAD-like=1-3", "--format", "csv")
    assert code == 0 and {line.split(",")[0] for line in csv_out.splitlines()[1:]} == {"RAD-like"}


async def test_a_column_pooling_two_datasets_is_refused_and_says_why(db_path: Path, capsys) -> None:
    await papers_board(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--column", "DRUG-h1=4,6")
    assert code == 2 and out == ""
    assert "'DRUG-h1' pools runs that differ (dataset demo-drug / other-drug" in err
    assert "give each its own --column" in err


async def test_by_expert_splits_an_experts_runs_on_different_datasets(db_path: Path, capsys) -> None:
    await papers_board(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--runs", "4", "5", "6", "--by", "expert")
    assert code == 0, err
    assert header(out) == ["DRUG h1 (dataset demo-drug)", "DRUG h1 (dataset other-drug)", "DRUG h2"]
    total = next(line for line in out.splitlines() if line.startswith("| Total sessions"))
    assert [c.strip() for c in total.strip("|").split("|")][2:] == ["5", "3", "6"]  # never "4 [3, 5]"


async def test_bad_columns_are_one_line_and_exit_2(db_path: Path, capsys) -> None:
    await papers_board(db_path)
    for argv, message in [
        (["--column", "RAD"], "write LABEL=RUNS"),
        (["--column", "A=1", "--column", "A=2"], "'A' is given twice"),
        (["--column", "A=99"], "no run 99"),
        (["--column", "A=nope"], "'nope' is neither a run id nor an experiment"),
        (["--column", "A=1", "--by", "expert"], "leave out --by"),
    ]:
        code, out, err = pxp(capsys, "report", "--db", db_path, *argv)
        assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, (argv, err)


async def test_columns_name_runs_by_range_and_experiments_by_name_and_bad_ones_say_which_file(db_path: Path, capsys) -> None:
    await papers_board(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--column", "E=experiment E", "--column", "R=1-3")
    assert code == 0, err
    total = next(line for line in out.splitlines() if line.startswith("| Total sessions"))
    assert [c.strip() for c in total.strip("|").split("|")][2:] == ["6 [3, 8]", "6 [3, 8]"]  # both runs 1-3
    for argv, message in [
        (["--column", "A=5-7"], "no run 7"),
        (["--column", "A=3-1"], "the range '3-1' runs backwards"),
        (["--column", "A=nope"], f"'nope' is neither a run id nor an experiment of {db_path}"),
        (["--column", "=1"], "write LABEL=RUNS"),
        (["--column", "A="], "write LABEL=RUNS"),
    ]:
        code, out, err = pxp(capsys, "report", "--db", db_path, *argv)
        assert code == 2 and out == "" and message in err, (argv, err)


async def test_a_pooling_column_names_every_difference_in_the_options_spelling(db_path: Path, capsys) -> None:
    with Blackboard.open(db_path) as board:
        await scripted_run(board, SCRIPTS[:3], human="h1", n=6)
        await scripted_run(board, SCRIPTS[:3], n=5, dataset="other-drug")  # the proxy
    code, out, err = pxp(capsys, "report", "--db", db_path, "--column", "H=1,2")
    assert code == 2 and out == ""
    assert (
        "pools runs that differ (dataset demo-drug / other-drug; human-kind live / proxy; expert h1 / none; n 6 / 5): "
        "a column is repetitions of one configuration; give each its own --column" in err
    )


def test_a_column_label_ends_at_the_first_equals_sign() -> None:
    from pxp_tui.report.columns import parse_column

    assert parse_column("DRUG-k3 = k=3 , run 4") == ("DRUG-k3", ["k=3", "run 4"])
