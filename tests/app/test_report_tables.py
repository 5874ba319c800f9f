"""The papers' tables as a reader sees them: each printed row, found by its label, against counts this file makes from
what the blackboard stores (the messages' tags, the measured items, the experts' first replies), with its own few lines
of counting: the intelligibility table (``pxp metrics``' plain text, ``pxp report``'s Markdown and CSV), the machine's
performance and the agreement between experts."""

from __future__ import annotations

import csv
import io
import random
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from rdkit import Chem

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard, evaluations
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import Reply, RunSpec, Turn, interact
from pxp_tui.protocol import Tag
from pxp_tui.tasks.base import DatasetRow

N, K = 6, 3
GOOD = ("RATIFY", "REVISE")
#: the row a reader means by the words of a label: (the class, the agent or "" for both)
CLASS_WORDS = (("Ultra-strong", "ultra"), ("Strong", "strong"), ("1-way", "one-way"), ("2-way", "two-way"), ("Total", "sessions"))


class Script:
    """An agent answering each session (by its order in the run) with the next (tag, prediction) of its script."""

    def __init__(self, scripts: list[list[tuple[str, str]]]) -> None:
        self.scripts = scripts

    async def respond(self, turn: Turn) -> Reply:
        own = sum(m.sender == turn.sender for m in turn.history)
        tag, prediction = self.scripts[turn.order][own]
        return Reply(Tag(tag), prediction, f"reason {turn.j}")


def random_tags(rng: random.Random, weights: dict[str, tuple[int, int, int, int]]) -> list[str]:
    """A session's tags from j = 1 (as long as the bound allows: the engine stops it where the rule says)."""
    tags = ["INIT"]
    for j in range(2, N + 1):
        choices = ["RATIFY", "REFUTE", "REVISE", "REJECT"][: 4 if j > K else 3]
        tags.append(rng.choices(choices, weights[("machine", "human")[j % 2 == 0]][: len(choices)])[0])
    return tags


async def add_run(board: Blackboard, sessions: list[list[tuple[str, str]]], *, expert: str | None = None) -> int:
    """A run of these sessions ((tag, prediction) from j = 1) on the dataset's first instances."""
    if not board.has_dataset("d"):
        smiles = ["CCO", "c1ccccc1O", "CC(=O)O", "CCN", "CCCl"]
        board.add_dataset("d", "drug", [DatasetRow(f"k{i}", "train", smiles[i % 5], "CC", "e") for i in range(40)])
    ids = board.instance_ids("d")[: len(sessions)]
    config = RunConfig(
        dataset="d", model="script", n=N, k=K, human_kind=HumanKind.LIVE if expert else HumanKind.PROXY, expert=expert
    )
    run_id = board.create_run(config, ids)
    machine = Script([s[0::2] for s in sessions])
    human = Script([s[1::2] for s in sessions])
    await interact(RunSpec(run_id, n=N, k=K), board.instances(ids), machine, human, board)
    return run_id


# -- the counting of this file -------------------------------------------------------------------------------------------
def stored_tags(db: Path, run_id: int) -> list[dict[str, list[str]]]:
    """Each finished session of the run: each agent's tags, as stored."""
    sessions: dict[int, dict[str, list[str]]] = {}
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT m.session_id, m.sender, m.tag FROM messages m JOIN data d ON d.session_id = m.session_id "
            "WHERE d.run_id = ? AND d.stop_reason IS NOT NULL ORDER BY m.session_id, m.j",
            [run_id],
        )
        for session, sender, tag in rows:
            sessions.setdefault(session, {"machine": [], "human": []})[sender].append(tag)
    return list(sessions.values())


def counts(sessions: list[dict[str, list[str]]]) -> Counter[tuple[str, str]]:
    """(class, agent) -> how many sessions are in it, by the definitions of DESIGN.md section 2."""
    out: Counter[tuple[str, str]] = Counter({("sessions", ""): len(sessions)})
    for session in sessions:
        tags = {agent: [t for t in sent if t != "INIT"] for agent, sent in session.items()}
        one_way = {a: any(t in GOOD for t in ts) and "REJECT" not in ts for a, ts in tags.items()}
        strong = {a: bool(ts) and all(t in GOOD for t in ts) for a, ts in tags.items()}
        for agent in tags:
            out["one-way", agent] += one_way[agent]
            out["strong", agent] += strong[agent]
            out["ultra", agent] += strong[agent] and "REVISE" in tags[agent]
        out["two-way", ""] += one_way["machine"] and one_way["human"]
    return out


def meant(label: str, agent: str) -> tuple[str, str]:
    """The (class, agent) a reader takes a printed row's label to mean."""
    kind = next(name for words, name in CLASS_WORDS if words.lower() in label.lower())
    return kind, agent.strip().lower()


# -- the intelligibility table ----------------------------------------------------------------------------------------------
@pytest.fixture
async def two_runs(db_path: Path) -> list[int]:
    """Two runs whose classes all have different counts for the human and the machine."""
    weights = {"machine": (3, 2, 3, 1), "human": (4, 4, 1, 1)}
    with Blackboard.open(db_path) as board:
        ids = []
        for seed, size in ((1, 30), (2, 24)):
            rng = random.Random(seed)
            ids.append(await add_run(board, [[(t, "CC") for t in random_tags(rng, weights)] for _ in range(size)]))
    return ids


def check_columns(db: Path, printed: dict[int, dict[tuple[str, str], tuple[int, str | None]]]) -> None:
    """Each run's printed (count, proportion) rows are the counts made here, every row once; every class's rows differ."""
    for run_id, rows in printed.items():
        mine = counts(stored_tags(db, run_id))
        assert set(rows) == set(mine) | {("two-way", ""), ("sessions", "")}
        sessions = mine["sessions", ""]
        for key, (count, proportion) in rows.items():
            assert count == mine[key], (run_id, key)
            if proportion is not None:
                assert proportion == f"{mine[key] / sessions:.2f}", (run_id, key)
    # a table printing one class's counts under another's label is seen: each class has its own counts
    columns = {key: tuple(counts(stored_tags(db, r))[key] for r in printed) for key in next(iter(printed.values()))}
    assert len(set(columns.values())) == len(columns), columns


def cell(text: str) -> tuple[int, str | None]:
    found = re.fullmatch(r"(\d+)(?: \((\d\.\d\d)\))?", text.strip())
    assert found, text
    return int(found.group(1)), found.group(2)


async def test_the_plain_text_table_of_pxp_metrics(two_runs: list[int], db_path: Path, capsys) -> None:
    code, out, _ = pxp(capsys, "metrics", "--db", db_path)
    assert code == 0
    header, rule, *lines = out.strip("\n").splitlines()
    assert set(rule) == {"-"}
    runs = [int(r) for r in re.findall(r"run (\d+) DRUG", header)]
    assert runs == two_runs
    printed: dict[int, dict] = {r: {} for r in runs}
    group = ""
    for line in lines:
        numbers = list(re.finditer(r"\d+(?: \(\d\.\d\d\))?(?=\s{2,}|$)", line))
        label = line[: numbers[0].start()].strip()
        first, _, agent = label.rpartition("  ") if "  " in label else (label, "", "")
        if line[:1] != " ":  # a row of its own; an indented row goes on with the label above
            group = first.strip()
        else:
            agent = label
        for run_id, number in zip(runs, numbers, strict=True):
            printed[run_id][meant(group, agent)] = cell(number.group(0))
    check_columns(db_path, printed)


async def test_the_markdown_table_of_pxp_report(two_runs: list[int], db_path: Path, capsys) -> None:
    code, out, _ = pxp(capsys, "report", "--db", db_path)
    assert code == 0
    section = out.split("## Intelligibility\n", 1)[1].split("\n## ", 1)[0]
    header, _align, *lines = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in (header, *lines)]
    runs = [int(re.fullmatch(r"DRUG run (\d+)", c).group(1)) for c in cells[0][2:]]
    assert runs == two_runs
    printed: dict[int, dict] = {r: {} for r in runs}
    group = ""
    for label, agent, *numbers in cells[1:]:
        group = label or group
        for run_id, number in zip(runs, numbers, strict=True):
            printed[run_id][meant(group, agent)] = cell(number)
    check_columns(db_path, printed)


async def test_the_csv_table_of_pxp_report(two_runs: list[int], db_path: Path, capsys) -> None:
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--format", "csv")
    assert code == 0
    printed: dict[int, dict] = {r: {} for r in two_runs}
    for row in csv.DictReader(io.StringIO(out)):
        run_id = int(row["runs"])
        assert row["column"] == f"DRUG run {run_id}"
        assert row["median"] == row["min"] == row["max"]  # one run per column
        words = row["measure"].split("_")
        agent = words[-1] if words[-1] in ("human", "machine") else ""
        label = {"one": "1-way", "two": "2-way", "strong": "Strong", "ultra": "Ultra-strong", "sessions": "Total"}[words[0]]
        proportion = f"{float(row['proportion']):.2f}" if row["proportion"] else None
        printed[run_id][meant(label, agent)] = (int(row["median"]), proportion)
    check_columns(db_path, printed)
    for row in csv.DictReader(io.StringIO(out)):  # the CSV's four decimals are the count over the sessions
        if row["proportion"]:
            mine = counts(stored_tags(db_path, int(row["runs"])))
            assert float(row["proportion"]) == pytest.approx(int(row["median"]) / mine["sessions", ""], abs=5e-5)


# -- machine performance ---------------------------------------------------------------------------------------------------
async def test_the_machine_performance_table_is_what_was_measured_item_by_item(
    two_runs: list[int], db_path: Path, tmp_path: Path, capsys
) -> None:
    rng = random.Random(5)
    with Blackboard.open(db_path) as board:
        ids = board.instance_ids("d")[:9]
        for run_id in reversed(two_runs):  # measured out of run order: the table is by run, then as measured
            for phase, sessions in (("start", 0), ("after", 3), ("end", 7)):
                items = [
                    {"instance_id": i, "correct": rng.random() < 0.5, "agreed": rng.random() < 0.6}
                    for i in ids[: rng.randint(4, 9)]
                ]
                evaluations.record(board, run_id, phase, "test", items, sessions=sessions, context_sessions=sessions // 2)
    with sqlite3.connect(db_path) as con:
        measured = con.execute("SELECT id, run_id, phase, sessions FROM evaluations ORDER BY run_id, id").fetchall()
        mine = []
        for evaluation, run_id, phase, sessions in measured:
            items = con.execute("SELECT correct, agreed FROM evaluation_items WHERE evaluation_id = ?", [evaluation]).fetchall()
            n = len(items)
            right, agreed, both = (sum(c for c, _ in items), sum(a for _, a in items), sum(c and a for c, a in items))
            mine.append({"run_id": run_id, "phase": phase, "sessions": sessions, "instances": n,
                         "p_correct": right / n, "p_agreed": agreed / n, "p_both": both / n})  # fmt: skip
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--out", tmp_path / "report")
    assert code == 0
    section = out.split("## Machine performance\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    printed = [dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)) for line in lines[2:]]
    with (tmp_path / "report" / "performance.csv").open(newline="") as f:
        written = list(csv.DictReader(f))
    for table in (printed, written):
        assert len(table) == len(mine)
        for row, expected in zip(table, mine, strict=True):
            assert (int(row["run_id"]), row["phase"], row["split"]) == (expected["run_id"], expected["phase"], "test")
            assert (int(row["sessions"]), int(row["instances"])) == (expected["sessions"], expected["instances"])
            for measure in ("p_correct", "p_agreed", "p_both"):
                assert float(row[measure]) == pytest.approx(expected[measure], abs=5e-5), (row, measure)


# -- agreement between experts -------------------------------------------------------------------------------------------------
def kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa: (observed - chance agreement) / (1 - chance agreement); None where chance agreement is 1."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    chance = sum(first.count(label) * second.count(label) for label in set(first) | set(second)) / n**2
    return None if chance == 1 else (observed - chance) / (1 - chance)


async def test_the_agreement_table_is_the_experts_first_replies_counted_here(db_path: Path, tmp_path: Path, capsys) -> None:
    rng = random.Random(11)
    pool = ["CCO", "OCC", "c1ccccc1O", "Oc1ccccc1", "CC(=O)O"]  # "OCC" is "CCO" written otherwise: MATCH's same answer
    with Blackboard.open(db_path) as board:
        for expert, size in (("h1", 14), ("h2", 12), ("h1", 3)):  # h1's second run: their first answers count
            sessions = [
                [
                    ("INIT", "CC"),
                    (rng.choice(["RATIFY", "REFUTE", "REVISE"]), rng.choice(pool)),
                    ("REFUTE", "CC"),
                    ("REJECT", "CC"),
                ]
                for _ in range(size)
            ]
            await add_run(board, sessions, expert=expert)
    with sqlite3.connect(db_path) as con:
        rows = con.execute(
            "SELECT r.expert, d.instance_id, m.tag, m.prediction, o.prediction, o.explanation FROM messages m "
            "JOIN data d ON d.session_id = m.session_id JOIN runs r ON r.id = d.run_id "
            "JOIN messages o ON o.session_id = m.session_id AND o.j = 1 WHERE m.j = 2 ORDER BY d.run_id, d.ord"
        ).fetchall()
    first: dict[str, dict[int, tuple[str, str, tuple[str, str]]]] = {}
    for expert, instance, tag, prediction, opened, why in rows:
        answer = (tag, Chem.CanonSmiles(prediction), (Chem.CanonSmiles(opened), why.strip()))
        first.setdefault(expert, {}).setdefault(instance, answer)
    shared = sorted(set(first["h1"]) & set(first["h2"]))
    same = [i for i in shared if first["h1"][i][2] == first["h2"][i][2]]
    mine: dict[tuple[str, int], tuple[float, float]] = {}
    for index, measure in enumerate(("tag", "prediction")):
        for instances in (same, shared):
            a, b = [first["h1"][i][index] for i in instances], [first["h2"][i][index] for i in instances]
            share = sum(x == y for x, y in zip(a, b, strict=True)) / len(instances)
            mine[(measure, len(instances))] = (kappa(a, b), share)
    assert mine[("prediction", len(shared))][1] not in (0, 1) and mine[("tag", len(shared))][1] not in (0, 1)
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--out", tmp_path / "report")
    assert code == 0
    section = out.split("## Agreement between experts\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    printed = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    with (tmp_path / "report" / "agreement.csv").open(newline="") as f:
        written = list(csv.reader(f))[1:]
    for table in (printed, written):
        assert sorted(row[3] for row in table) == ["prediction", "tag"]
        for task, one, other, measure, *groups in table:
            assert (task, one, other) == ("DRUG", "h1", "h2")
            assert [int(groups[0]), int(groups[3])] == [len(same), len(shared)]
            for count, value, share in (groups[:3], groups[3:]):
                expected_kappa, expected_share = mine[(measure, int(count))]
                assert float(value) == pytest.approx(expected_kappa, abs=0.005)
                assert float(share) == pytest.approx(expected_share, abs=0.005)
