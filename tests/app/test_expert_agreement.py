"""Agreement between two experts who answered the same instances (the journal's DRUG-h1 and DRUG-h2): Cohen's kappa
and raw agreement on their first reply's tag and on their prediction, with the number of shared instances."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.boards import scripted_run
from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard

RATIFIES = ["INIT", "RATIFY", "RATIFY"]
REFUTES = ["INIT", "REFUTE", "REFUTE", "REJECT"]


async def two_experts(db: Path) -> None:
    """h1 and h2 on the same four instances: h1 ratifies the first two openings, h2 only the first. A third
    expert answers other instances (another dataset): nobody shares them."""
    with Blackboard.open(db) as board:
        await scripted_run(board, [RATIFIES, RATIFIES, REFUTES, REFUTES], human="h1")
        await scripted_run(board, [RATIFIES, REFUTES, REFUTES, REFUTES], human="h2")
        await scripted_run(board, [RATIFIES, REFUTES], human="h3", dataset="other-drug")
        await scripted_run(board, [RATIFIES, RATIFIES])  # the proxy is no expert


def agreement_rows(markdown: str) -> list[list[str]]:
    section = markdown.split("## Agreement between experts", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[1:]]


async def test_two_experts_on_the_same_instances_get_kappa_and_raw_agreement(db_path: Path, capsys, tmp_path: Path) -> None:
    await two_experts(db_path)
    code, out, err = pxp(capsys, "report", "--db", db_path, "--by", "expert", "--out", tmp_path / "report")
    assert code == 0, err
    rows = agreement_rows(out)
    # tags: h1 RATIFY RATIFY REFUTE REFUTE, h2 RATIFY REFUTE REFUTE REFUTE, every opening the same. Observed
    # agreement 3/4; by chance (2/4)(1/4) + (2/4)(3/4) = 1/2; Cohen's kappa (3/4 - 1/2) / (1 - 1/2) = 0.5
    assert ["DRUG", "h1", "h2", "tag", "4", "0.50", "0.75", "4", "0.50", "0.75"] in rows
    # both predicted the same throughout: agreement 1, kappa undefined (chance agreement is 1 too)
    undefined = "undefined (one label throughout)"
    assert ["DRUG", "h1", "h2", "prediction", "4", undefined, "1.00", "4", undefined, "1.00"] in rows
    assert not any("h3" in row or "proxy" in row for row in rows)  # no shared instance; not an expert
    csv = (tmp_path / "report" / "agreement.csv").read_text().splitlines()
    assert csv[1].startswith("DRUG,h1,h2,tag,4,0.50,0.75,4,0.50,0.75")


async def test_kappa_pairs_judgements_of_the_same_opening_and_says_how_many(db_path: Path, capsys) -> None:
    """A sampling model gives each expert's run its own opening: h2's fourth session opened otherwise, so the fourth
    instance is two judgements of two answers, and the first figure leaves it out."""
    await two_experts(db_path)
    with Blackboard.open(db_path) as board:
        h2_run = next(r.id for r in board.runs() if r.human == "h2")
        board.db.execute(
            "UPDATE messages SET explanation = 'another opening' WHERE j = 1 AND session_id = "
            "(SELECT session_id FROM data WHERE run_id = ? ORDER BY ord DESC LIMIT 1)",
            [h2_run],
        )
        board.db.conn.commit()
    code, out, err = pxp(capsys, "report", "--db", db_path, "--by", "expert")
    assert code == 0, err
    # same opening: h1 RATIFY RATIFY REFUTE, h2 RATIFY REFUTE REFUTE: observed 2/3, by chance 4/9, kappa 0.40
    assert ["DRUG", "h1", "h2", "tag", "3", "0.40", "0.67", "4", "0.50", "0.75"] in agreement_rows(out)
    assert "where both judged the same opening" in " ".join(out.split())


async def test_two_experts_who_never_judged_the_same_opening_get_no_first_figure(db_path: Path, capsys) -> None:
    await two_experts(db_path)
    with Blackboard.open(db_path) as board:
        h2_run = next(r.id for r in board.runs() if r.human == "h2")
        board.db.execute(
            "UPDATE messages SET prediction = 'CCO' WHERE j = 1 AND session_id IN (SELECT session_id FROM data WHERE run_id = ?)",
            [h2_run],
        )
        board.db.conn.commit()
    code, out, err = pxp(capsys, "report", "--db", db_path, "--by", "expert")
    assert code == 0, err
    assert ["DRUG", "h1", "h2", "tag", "0", "none", "none", "4", "0.50", "0.75"] in agreement_rows(out)


async def test_no_section_without_two_experts_on_shared_instances(db_path: Path, capsys) -> None:
    await two_experts(db_path)
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--runs", "1", "3", "4")
    assert code == 0 and "## Agreement between experts" not in out


def test_kappa_is_scikit_learns() -> None:
    from sklearn.metrics import cohen_kappa_score

    from pxp_tui.report.agreement import kappa

    first, second = ["a", "b", "b", "c", "a", "c"], ["a", "b", "c", "c", "b", "c"]
    assert kappa(first, second) == cohen_kappa_score(first, second)
    assert kappa(["a", "a"], ["a", "a"]) is None
