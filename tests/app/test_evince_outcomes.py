"""What EVINCE's stop rule found, stored as the session's stop reason: converged (WD fell, or the agents agree),
diverged (WD rose), stalled (WD did not move, the agents apart); at the bound, ``bound`` with the rule's round and
finding in ``session_information``. And which MI the rules compare (``--evince-mi``: normalised or literal)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.engine import Reply, RunSpec, Turn, interact
from pxp_tui.protocol import StopReason, Tag
from pxp_tui.protocol.evince import (
    CONVERGED,
    DIVERGED,
    MI,
    NMI,
    OUTCOMES,
    STALLED,
    RoundInformation,
    outcome,
    should_stop,
    summarise,
)

from ..pure.test_engine import setup_run

A, B = "Influenza", "Migraine"


def rows(db: Path, query: str, params: tuple = ()) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(query, params).fetchall()


def check_stop_reasons(db: Path) -> list[str]:
    """Every session EVINCE's rule stopped says what the rule found at its last round: ``converged`` never on a
    rising WD, ``diverged`` only on one; the stop reasons."""
    reasons = []
    for s in rows(db, "SELECT s.*, u.stop_tolerance FROM session_information s JOIN runs u ON u.id = s.run_id"):
        reasons.append(s["stop_reason"])
        if s["stop_reason"] not in OUTCOMES:
            continue
        wd = [r[0] for r in rows(db, "SELECT wasserstein FROM rounds WHERE session_id = ? ORDER BY round", (s["session_id"],))]
        rose = wd[-1] > wd[-2] + s["stop_tolerance"]
        assert (s["stop_reason"] == DIVERGED) == rose, (s["session_id"], wd)
        assert s["rule_at"] == s["last_round"] and s["rule_outcome"] == s["stop_reason"]
    return reasons


def measured(wd: float, nmi: float = 0.5, mi: float = 0.5) -> RoundInformation:
    return RoundInformation(1, 1.0, 1.0, 0.1, wd, 0, 0, 0, 0, mi, nmi, 0, 0, 0, 0)


def test_a_stop_says_what_the_rule_found() -> None:
    assert {r.value for r in StopReason if r.by_evince} == set(OUTCOMES)
    assert outcome(measured(0.30), measured(0.50)) == DIVERGED
    assert outcome(measured(0.50), measured(0.30)) == CONVERGED
    assert outcome(measured(0.30), measured(0.305)) == STALLED  # within the tolerance: no move, still apart
    assert outcome(measured(0.0), measured(0.005)) == CONVERGED  # alike within the tolerance
    assert outcome(measured(0.30), measured(0.50), tolerance=0.25) == STALLED


def test_the_mi_the_rules_compare_decides_where_the_two_differ() -> None:
    # both agents move from a coin toss to 90/10 together: WD 0 and NMI 1 throughout, MI falls from 1 to 0.47 bits
    before, after = measured(0.0, nmi=1.0, mi=1.0), measured(0.0, nmi=1.0, mi=0.469)
    assert not should_stop([before, after], mi=NMI) and should_stop([before, after], mi=MI)
    assert summarise([before, after], mi=MI).fig1_outcome == CONVERGED
    with pytest.raises(ValueError, match="nmi, mi"):
        should_stop([before, after], mi="bits")


class Debater:
    """The machine's distributions by round, the other's fixed; both name A (so PXP alone would ratify)."""

    def __init__(self, by_round: list[dict[str, float]]) -> None:
        self.by_round = by_round

    async def respond(self, turn: Turn) -> Reply:
        dist = self.by_round[min((turn.j + 1) // 2, len(self.by_round)) - 1]
        return Reply(Tag.INIT if turn.j == 1 else Tag.RATIFY, A, "e", {"distribution": dist, "distribution_fallback": 0})


def debate(db: Path, machine: list[dict], other: list[dict], n: int, mi: str = NMI) -> None:
    with Blackboard.open(db) as board:
        run_id, instances = setup_run(board, 1)
        board.db.execute(
            "UPDATE runs SET top_k = 2, stop = 'evince', evince_rule = 'fig1', evince_mi = ? WHERE id = ?", [mi, run_id]
        )
        spec = RunSpec(run_id, n=n, stop="evince", evince_rule="fig1", evince_mi=mi)
        asyncio.run(interact(spec, instances, Debater(machine), Debater(other), board))


#: the machine moves away from the other (WD 0.1 -> 0.5)
AWAY = ([{A: 0.5, B: 0.5}, {A: 0.9, B: 0.1}], [{A: 0.4, B: 0.6}])
#: both move from a coin toss to 90/10 together (WD 0, NMI 1; MI falls)
TOGETHER = ([{A: 0.5, B: 0.5}, {A: 0.9, B: 0.1}], [{A: 0.5, B: 0.5}, {A: 0.9, B: 0.1}])


def test_a_debate_whose_wasserstein_distance_rose_is_stored_as_diverged(tmp_path: Path) -> None:
    db = tmp_path / "away.db"
    debate(db, *AWAY, n=20)
    assert check_stop_reasons(db) == [DIVERGED]
    assert rows(db, "SELECT n_messages FROM data")[0][0] == 4


def test_a_rule_met_at_the_bounds_round_keeps_both_facts(capsys, tmp_path: Path) -> None:
    db = tmp_path / "bound.db"
    debate(db, *AWAY, n=4)  # the rule holds at round 2, which message 4, the bound, closes
    (s,) = rows(db, "SELECT * FROM session_information")
    assert (s["stop_reason"], s["rule_at"], s["last_round"], s["rule_outcome"]) == ("bound", 2, 2, DIVERGED)
    code, out, err = pxp(capsys, "report", "--db", db)
    assert code == 0, err
    assert "(ended: bound 1 (EVINCE's rule met at the bound's round in 1: diverged 1))" in out


@pytest.mark.parametrize(("mi", "reason", "messages"), [(NMI, "bound", 6), (MI, CONVERGED, 4)])
def test_the_run_compares_the_mi_it_was_given(tmp_path: Path, mi: str, reason: str, messages: int) -> None:
    db = tmp_path / f"{mi}.db"
    debate(db, *TOGETHER, n=6, mi=mi)
    (s,) = rows(db, "SELECT * FROM session_information")
    assert (s["stop_reason"], s["evince_mi"]) == (reason, mi)
    assert rows(db, "SELECT n_messages FROM data")[0][0] == messages
    assert s["fig1_at"] == (2 if mi == MI else None)


def test_pxp_run_records_the_compared_mi(capsys, tmp_path: Path) -> None:
    db = tmp_path / "mi.db"
    debate_args = ("--task", "diagnosis", "--human", "model:offline", "--top-k", "3", "--stop", "evince", "--limit", "1")
    code, _, err = pxp(capsys, "run", "--headless", "--quiet", *debate_args, "--evince-mi", "mi", "--n", "4", "--db", db)
    assert code == 0, err
    assert rows(db, "SELECT evince_mi FROM runs")[0][0] == "mi"
    assert {r[0] for r in rows(db, "SELECT evince_mi FROM session_information")} <= {"mi"}
    with Blackboard.open(db, create=False, readonly=True) as board:
        assert board.run(1).config.evince_mi == "mi"
    code, _, err = pxp(capsys, "run", "--headless", *debate_args, "--n", "4", "--db", db)
    assert code == 0, err
    assert rows(db, "SELECT evince_mi FROM runs WHERE id = 2")[0][0] == "nmi"  # the default
    code, _, err = pxp(capsys, "run", "--headless", *debate_args, "--evince-mi", "bits", "--db", db)
    assert code != 0 and "--evince-mi" in err
    assert rows(db, "SELECT COUNT(*) FROM runs")[0][0] == 2  # nothing stored


@pytest.mark.slow
def test_the_offline_pair_never_stores_converged_on_a_rising_wd(capsys, tmp_path: Path) -> None:
    """The check of the issue: two offline DIAGNOSIS readers, --top-k 3 --stop evince, 10 sessions."""
    db = tmp_path / "check.db"
    code, _, err = pxp(
        capsys, "run", "--headless", "--quiet", "--task", "diagnosis", "--model", "offline", "--human", "model:offline",
        "--top-k", "3", "--stop", "evince", "--limit", "10", "--db", db,
    )  # fmt: skip
    assert code == 0, err
    reasons = check_stop_reasons(db)
    assert len(reasons) == 10 and set(reasons) <= {*OUTCOMES, "bound", "rejected"}
    assert not rows(db, "SELECT 1 FROM messages WHERE distribution_fallback = 1")  # each reader states its own
