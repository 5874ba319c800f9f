"""DRUG's MATCH, selectable (``--drug-match``): the papers' same set of canonical reactants (the default), the reference
scripts' ``DRUG.match`` as it runs (a canonical reactant in common), and its code as written (or an identical Morgan
fingerprint, radius 2, 1024 bits); recorded with the run. docs/FIDELITY.md, row match-drug."""

from __future__ import annotations

from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.tasks import get_task

TASK = get_task("drug")
ACID_CHLORIDE, ACID, AMINE = "CC(=O)Cl", "CC(=O)O", "NCc1ccccc1"
#: two enantiomers: different canonical SMILES, the same Morgan fingerprint (it ignores chirality)
R_ALANINOL, S_ALANINOL = "C[C@@H](N)CO", "C[C@H](N)CO"


def test_the_papers_set_is_the_default_and_the_references_rules_count_one_reactant_in_common() -> None:
    same, common, printed = (TASK.with_match(rule) for rule in ("same-set", "any-in-common", "any-in-common-or-fingerprint"))
    assert same is TASK  # the default rule is the task itself
    one_in_common = (f"{ACID}.{AMINE}", f"{AMINE}.{ACID_CHLORIDE}")
    assert not same.match(*one_in_common) and common.match(*one_in_common) and printed.match(*one_in_common)
    assert not common.match(ACID, AMINE) and not printed.match(ACID, AMINE)  # nothing in common
    assert common.match(f"{AMINE}.{ACID}", f"{ACID}.NCc1ccccc1")  # spelling and order never matter
    enantiomers = (f"{R_ALANINOL}.{ACID}", f"{S_ALANINOL}.{ACID_CHLORIDE}")
    assert not common.match(*enantiomers) and printed.match(*enantiomers)  # only the fingerprint sees them alike


def test_an_unreadable_reactant_is_left_out_not_matched() -> None:
    common = TASK.with_match("any-in-common")
    assert common.match(f"C1CC.{ACID}", ACID) and not common.match("C1CC", "C1CC")


def test_pxp_run_offers_the_rule_and_refuses_it_for_another_task(capsys) -> None:
    with pytest.raises(SystemExit):
        pxp(capsys, "run", "--help")
    out = capsys.readouterr().out
    assert "--drug-match {same-set,any-in-common,any-in-common-or-fingerprint}" in out
    assert "reference scripts' DRUG.match as it runs" in " ".join(out.split())
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--drug-match", "any-in-common", "--quiet")
    assert code == 2 and "--drug-match any-in-common is a DRUG option, not one of the rad task" in err


def _evaluate(capsys, db: Path, rule: str) -> tuple[str, int]:
    """The run line and the machine's right answers on the test split at the start, MATCH by ``rule``."""
    code, out, err = pxp(capsys, "run", "--headless", "--dataset", "interact-drug", "--model", "offline", "--evaluate",
                         "--limit", "1", "--n", "2", "--drug-match", rule, "--quiet", "--db", db)  # fmt: skip
    assert code == 0, err
    with Blackboard.open(db, create=False) as board:
        run = board.runs()[-1]
        assert run.config.drug_match == rule and run.config.effective is not None
        assert run.config.effective["drug_match"] == rule  # recorded with the run
        (right,) = board.db.execute(
            "SELECT correct FROM evaluations WHERE run_id = ? AND phase = 'start' AND split = 'test'", [run.id]
        ).fetchone()
    return out.splitlines()[0], right


@pytest.mark.slow
def test_on_the_reference_split_the_offline_openings_are_8_of_19_right_by_set_and_11_by_the_reference(
    capsys, shared_data: Path, db_path: Path
) -> None:
    """The figure docs/FIDELITY.md gives: the offline baseline's opening answers on the 19 test molecules of the
    reference's split of retro.csv (RDKit 2023.3.1, the reference's own, gives the same)."""
    code, _, err = pxp(capsys, "import", "drug", shared_data / "retro.csv", "--name", "interact-drug", "--reference-split",
                       "--db", db_path)  # fmt: skip
    assert code == 0, err
    line, same_set = _evaluate(capsys, db_path, "same-set")
    assert same_set == 8 and "MATCH" not in line
    line, in_common = _evaluate(capsys, db_path, "any-in-common")
    assert in_common == 11 and "MATCH any-in-common" in line
    assert _evaluate(capsys, db_path, "any-in-common-or-fingerprint")[1] == 11


@pytest.fixture
def matched(capsys, db_path: Path) -> Path:
    """A finished DRUG run whose MATCH is the reference's."""
    code, _, err = pxp(capsys, "run", "--headless", "--model", "offline", "--limit", "1", "--n", "2", "--drug-match",
                       "any-in-common", "--quiet", "--db", db_path)  # fmt: skip
    assert code == 0, err
    return db_path


async def test_the_review_names_the_runs_match_rule(matched: Path) -> None:
    from pxp_harness.app_helpers import wait_for
    from pxp_tui.app.review import ReviewApp

    app = ReviewApp(matched)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReviewScreen" and app.screen.runs, "the runs")
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SessionsScreen", "the sessions")
        title = app.screen.query_one("#sessions-title")
        await wait_for(pilot, lambda: "n=2 k=3" in str(title.render()), "the run's settings")
        assert "n=2 k=3 · MATCH any-in-common ·" in str(title.render())
