"""The evaluation of debates in SQL (``debate_ranks``, ``debate_accuracy``, ``debate_confusion``) equals the pure
Python ranking of each agent's first and last distribution and of the final one against the instance's label."""

from __future__ import annotations

import json
import random

import pytest

from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.protocol.ranking import rank, reciprocal_rank, top_one
from pxp_tui.tasks.base import DatasetRow

LABELS = ("Influenza", "Migraine", "Asthma", "Hepatitis B")


def random_distribution(rng: random.Random) -> dict[str, float]:
    """Random, with ties, zeros, one-hots, a label spelt in another case, and a label outside the set."""
    kind = rng.random()
    if kind < 0.15:
        return {rng.choice(LABELS): 1.0}
    if kind < 0.3:
        return dict.fromkeys(rng.sample(LABELS, 2), 0.5)  # a tie at the top
    found = {x: rng.choice([0.0, 0.1, 0.2, 0.3, 0.4]) for x in rng.sample(LABELS, rng.randint(1, 4))}
    if rng.random() < 0.2:
        found["dengue fever"] = 0.2
    if rng.random() < 0.2 and "Migraine" in found:
        found["migraine"] = found.pop("Migraine")
    if not sum(found.values()):
        found[LABELS[0]] = 1.0
    return found


def fill(board: Blackboard, rng: random.Random, sessions: int, k: int) -> dict[int, tuple[str, dict[int, dict]]]:
    rows = [DatasetRow(f"c{i}", "train", "text", rng.choice(LABELS), "e", meta={"labels": list(LABELS)}) for i in range(sessions)]
    board.add_dataset("toy", "diagnosis", rows)
    ids = board.instance_ids("toy")
    run = board.create_run(
        RunConfig(task="diagnosis", dataset="toy", model="offline", human_kind=HumanKind.MODEL, human_model="offline", top_k=k),
        ids,
    )
    found = {}
    for order, instance in enumerate(ids):
        session = board.start_session(run, instance, order)
        length = rng.randint(1, 6)
        found[session] = (rows[order].reference_prediction, {})
        for j in range(1, length + 1):
            dist = random_distribution(rng)
            found[session][1][j] = dist
            sender = Sender.MACHINE if j % 2 else Sender.HUMAN
            message = Message(session, j, sender, Tag.INIT if j == 1 else Tag.REFUTE, "x", "e", {"distribution": dist})
            board.record(message, {}, StopReason.BOUND if j == length else None)
    return found


def expected_rows(label: str, by_j: dict[int, dict], final: dict | None, k: int) -> dict[str, dict]:
    machine = sorted(j for j in by_j if j % 2)
    human = sorted(j for j in by_j if j % 2 == 0)
    stated = {"machine_first": by_j[machine[0]], "machine_last": by_j[machine[-1]]}
    if human:
        stated |= {"human_first": by_j[human[0]], "human_last": by_j[human[-1]]}
    if final is not None:
        stated["final"] = final
    out = {}
    for which, dist in stated.items():
        found = rank(label, dist)
        out[which] = {
            "rank": found,
            "top1": int(found == 1),
            "topk": int(found is not None and found <= k),
            "reciprocal_rank": reciprocal_rank(found, k),
            "predicted": top_one(dist),
        }
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_views_equal_the_python_ranking(seed: int) -> None:
    rng = random.Random(seed)
    board = Blackboard.memory()
    k = rng.choice([1, 2, 3])
    found = fill(board, rng, 25, k)
    stored = {(r["session_id"], r["which"]): r for r in board.db.query("SELECT * FROM debate_ranks")}
    expected_count = 0
    for session, (label, by_j) in found.items():
        final = board.db.execute("SELECT final_distribution FROM data WHERE session_id = ?", [session]).fetchone()[0]
        for which, want in expected_rows(label, by_j, json.loads(final) if final else None, k).items():
            row = stored[(session, which)]
            expected_count += 1
            assert {name: row[name] for name in want} == pytest.approx(want), (session, which)
            assert row["label"] == label and row["k"] == k
    assert len(stored) == expected_count
    # per run and distribution: the means of the rows; the confusion matrix: their counts
    for acc in board.db.query("SELECT * FROM debate_accuracy"):
        mine = [r for (_, which), r in stored.items() if which == acc["which"]]
        assert acc["sessions"] == len(mine)
        assert acc["mrr"] == pytest.approx(sum(r["reciprocal_rank"] for r in mine) / len(mine))
        assert acc["top1_accuracy"] == pytest.approx(sum(r["top1"] for r in mine) / len(mine))
    cells = sum(r["sessions"] for r in board.db.query("SELECT sessions FROM debate_confusion"))
    assert cells == len(stored)


def test_ranks_are_pessimistic_and_ignore_ascii_case() -> None:
    assert rank("Asthma", {"Asthma": 0.5, "Influenza": 0.5}) == 2  # a tie does not count in its favour
    assert rank("asthma ", {"Asthma": 0.6, "Influenza": 0.4}) == 1
    assert rank("Asthma", {"Influenza": 1.0, "Asthma": 0.0}) is None  # no mass: no rank
    assert rank("Asthma", {"Influenza": 0.5, "Migraine": 0.3, "Asthma": 0.2}) == 3
    assert reciprocal_rank(3, 3) == pytest.approx(1 / 3) and reciprocal_rank(3, 2) == 0 and reciprocal_rank(None) == 0
    assert top_one({"b": 0.5, "a": 0.5}) == "a"


def test_drug_labels_are_compared_as_canonical_smiles_case_and_all() -> None:
    """4-aminocyclohexanol (``NC1CCC(O)CC1``) is not a hit for 4-aminophenol (``Nc1ccc(O)cc1``), though the two
    differ only in case; 4-aminophenol written in Kekulé form (``OC1=CC=C(N)C=C1``) is, as MATCH compares them."""
    board = Blackboard.memory()
    rows = [
        DatasetRow("aminophenol", "train", "CC(=O)Nc1ccc(O)cc1", "Nc1ccc(O)cc1", "e"),
        DatasetRow("kekule", "train", "CC(=O)Nc1ccc(O)cc1", "OC1=CC=C(N)C=C1", "e"),
    ]
    board.add_dataset("toy", "drug", rows)
    ids = board.instance_ids("toy")
    config = RunConfig(task="drug", dataset="toy", model="offline", human_kind=HumanKind.MODEL, human_model="offline", top_k=2)
    run = board.create_run(config, ids)
    cyclohexanol, phenol = "NC1CCC(O)CC1", "Nc1ccc(O)cc1"  # as the DRUG reader keys a distribution: canonical SMILES
    stated = ({cyclohexanol: 0.7, "CCO": 0.3}, {phenol: 0.6, cyclohexanol: 0.4})
    for order, (instance, dist) in enumerate(zip(ids, stated, strict=True)):
        session = board.start_session(run, instance, order)
        for j, sender in ((1, Sender.MACHINE), (2, Sender.HUMAN)):
            message = Message(session, j, sender, Tag.INIT if j == 1 else Tag.REFUTE, "CCO", "e", {"distribution": dist})
            board.record(message, {}, StopReason.BOUND if j == 2 else None)
    found = {(r["ord"], r["which"]): r for r in board.db.query("SELECT * FROM debate_ranks")}
    aminophenol, kekule = found[0, "machine_first"], found[1, "machine_first"]
    assert (aminophenol["rank"], aminophenol["top1"], aminophenol["reciprocal_rank"]) == (None, 0, 0.0)
    assert (kekule["rank"], kekule["top1"], kekule["label"], kekule["predicted"]) == (1, 1, phenol, phenol)
    (accuracy,) = board.db.query("SELECT * FROM debate_accuracy WHERE which = 'machine_first'")
    assert (accuracy["sessions"], accuracy["top1_accuracy"]) == (2, 0.5)
