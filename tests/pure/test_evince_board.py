"""EVINCE on the blackboard: distributions on messages, ``rounds`` kept by a trigger and equal to Python's
and scipy's measures, the views, the final distribution, the run's settings, the 3 -> 4 migration, merge."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from pxp_tui.blackboard import Blackboard, schema
from pxp_tui.blackboard.merge import merge
from pxp_tui.blackboard.rounds import MEASURES
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.protocol.evince import RoundInformation, aggregate, rounds_of, summarise
from pxp_tui.tasks.rad.labels import LABELS

scipy_stats = pytest.importorskip("scipy.stats")
scipy_distance = pytest.importorskip("scipy.spatial.distance")

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackboard-v3.db.gz"
DRUG_SETS = ("CCO.CC(=O)Cl", "CC(=O)O.OCC", "c1ccccc1Br.OB(O)c1ccccc1")


def random_distribution(rng: random.Random, labels: tuple[str, ...]) -> dict[str, float]:
    """Random probabilities, with zeros and one-hot cases."""
    kind = rng.random()
    if kind < 0.15:
        hot = rng.choice(labels)
        return {x: float(x == hot) for x in labels}
    values = [0.0 if rng.random() < 0.25 else rng.random() for _ in labels]
    if not sum(values):
        values[0] = 1.0
    total = sum(values)
    return {x: v / total for x, v in zip(labels, values, strict=True)}


def fill(board: Blackboard, rng: random.Random, sessions: int = 6, labels: tuple[str, ...] = LABELS) -> dict[int, dict]:
    """Sessions of random length whose every message carries a distribution; their distributions by j."""
    board.add_dataset("toy", "rad", [])
    board.db.execute("INSERT INTO instances (dataset, key) VALUES ('toy', 'a')")
    (instance,) = board.instance_ids("toy")
    run = board.create_run(
        RunConfig(
            task="rad",
            dataset="toy",
            model="offline",
            human_kind=HumanKind.MODEL,
            human_model="offline",
            top_k=5,
            contentiousness=0.9,
            stop="both",
            evince_rule="fig1",
            stop_tolerance=0.01,
            smoothing=0.01,
            ground_metric="ordered" if labels == LABELS else "discrete",
        ),
        [instance] * sessions,
        label_order=LABELS if labels == LABELS else None,
    )
    found: dict[int, dict] = {}
    for order in range(sessions):
        session = board.start_session(run, instance, order)
        length = rng.randint(1, 8)
        found[session] = {}
        for j in range(1, length + 1):
            dist = random_distribution(rng, labels)
            found[session][j] = dist
            message = Message(
                session,
                j,
                Sender.MACHINE if j % 2 else Sender.HUMAN,
                Tag.INIT if j == 1 else Tag.REFUTE,
                max(dist, key=dist.__getitem__),
                "e",
                {"distribution": dist, "distribution_fallback": 0},
            )
            board.record(message, {}, StopReason.BOUND if j == length else None)
    return found


def stored(board: Blackboard, view: str = "rounds") -> dict[tuple[int, int], dict]:
    return {(r["session_id"], r["round"]): r for r in board.db.query(f"SELECT * FROM {view}")}


@pytest.mark.parametrize("labels", [LABELS, DRUG_SETS], ids=["rad", "drug"])
def test_every_stored_round_equals_python_and_scipy(labels: tuple[str, ...]) -> None:
    rng = random.Random(7)
    board = Blackboard.memory()
    found = fill(board, rng, 12, labels)
    rows = stored(board)
    order = LABELS if labels == LABELS else None
    expected = {(s, r.round): r for s, by_j in found.items() for r in rounds_of(by_j, order)}
    assert set(rows) == set(expected) and rows
    for key, python in expected.items():
        row = rows[key]
        for name in MEASURES:
            value = getattr(python, name)
            if value == float("inf"):  # a raw measure, undefined: NULL
                assert row[name] is None, (key, name)
            else:
                assert row[name] == pytest.approx(value, abs=1e-9), (key, name)
        # scipy, independently, on the distributions read back from the blackboard
        session, r = key
        pa, pb = (
            json.loads(
                board.db.execute("SELECT distribution FROM messages WHERE session_id = ? AND j = ?", [session, j]).fetchone()[0]
            )
            for j in (2 * r - 1, 2 * r)
        )
        keys = list(dict.fromkeys([*pa, *pb]))
        p, q = [pa.get(x, 0.0) for x in keys], [pb.get(x, 0.0) for x in keys]
        assert row["entropy_machine"] == pytest.approx(scipy_stats.entropy(p, base=2), abs=1e-9)
        assert row["entropy_human"] == pytest.approx(scipy_stats.entropy(q, base=2), abs=1e-9)
        assert row["js_divergence"] == pytest.approx(scipy_distance.jensenshannon(p, q, base=2) ** 2, abs=1e-9)
        e = 0.01
        ps, qs = [(v + e) / (1 + len(keys) * e) for v in p], [(v + e) / (1 + len(keys) * e) for v in q]
        assert row["kl_machine_human"] == pytest.approx(scipy_stats.entropy(ps, qs, base=2), abs=1e-9)
        assert row["kl_human_machine"] == pytest.approx(scipy_stats.entropy(qs, ps, base=2), abs=1e-9)
        raw = scipy_stats.entropy(p, q, base=2)
        assert row["kl_machine_human_raw"] is None if raw == float("inf") else row["kl_machine_human_raw"] == pytest.approx(raw)
        if order:
            positions = [LABELS.index(x) for x in keys]
            wd = scipy_stats.wasserstein_distance(positions, positions, p, q) if sum(p) and sum(q) else 0.0
            assert row["wasserstein"] == pytest.approx(wd, abs=1e-9)
        else:
            assert row["wasserstein"] == pytest.approx(sum(abs(a - b) for a, b in zip(p, q, strict=True)) / 2, abs=1e-9)


def test_the_views_equal_python() -> None:
    rng = random.Random(11)
    board = Blackboard.memory()
    found = fill(board, rng, 15)
    rounds = stored(board, "round_information")
    assert all(r["run_id"] == 1 for r in rounds.values())
    sessions = {r["session_id"]: r for r in board.db.query("SELECT * FROM session_information")}
    for session, by_j in found.items():
        measured = rounds_of(by_j, LABELS)
        if not measured:
            assert session not in sessions
            continue
        summary, row = summarise(measured), sessions[session]
        assert row["rounds"] == summary.rounds and row["rule_at"] == summary.fig1_at  # the run's rule, fig1
        assert row["rule_outcome"] == summary.fig1_outcome and row["evince_mi"] == "nmi"
        assert (row["plateau_at"], row["fig1_at"], row["evince_rule"]) == (summary.plateau_at, summary.fig1_at, "fig1")
        assert bool(row["wasserstein_decreased"]) == summary.wasserstein_decreased
        assert bool(row["mi_increased"]) == summary.mi_increased
        assert row["wasserstein_last"] == pytest.approx(summary.last.wasserstein, abs=1e-9)
        assert row["normalised_mi_first"] == pytest.approx(summary.first.normalised_mi, abs=1e-9)
        # the final distribution at the session's end: the latest of each agent, equal weights until judged, by the
        # run's aggregation (EnToPPS where their top-5 label sets differ)
        last_m = by_j[max(j for j in by_j if j % 2)]
        last_h = by_j[max(j for j in by_j if j % 2 == 0)]
        final = json.loads(row["final_distribution"])
        assert final == pytest.approx(aggregate(last_m, last_h, 1.0, 1.0, 5)[0])
        assert json.loads(row["final_weights"])["method"] == "equal (not judged)"


def test_a_round_is_measured_whichever_message_arrives_last() -> None:
    board = Blackboard.memory()
    found = fill(board, random.Random(3), 1)
    ((session, by_j),) = found.items()
    if len(by_j) < 2:
        pytest.skip("drawn too short")
    board.db.execute("DELETE FROM rounds")
    board.db.execute("UPDATE messages SET distribution = distribution")  # an update does not fire it
    assert not stored(board)
    rows = list(board.db.query("SELECT * FROM messages WHERE session_id = ? AND j IN (1, 2) ORDER BY j DESC", [session]))
    board.db.execute("DELETE FROM messages WHERE session_id = ? AND j IN (1, 2)", [session])
    for row in rows:  # j = 2 first, then 1
        board.db.table("messages").insert(row)
    (row,) = stored(board).values()
    python = RoundInformation.measure(1, by_j[1], by_j[2], LABELS)
    assert row["normalised_mi"] == pytest.approx(python.normalised_mi, abs=1e-9)


@pytest.fixture
def v3_file(tmp_path: Path) -> Path:
    path = tmp_path / "v3.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def test_a_schema_3_file_migrates_and_its_runs_read(v3_file: Path) -> None:
    with sqlite3.connect(v3_file) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (3,)
        before = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    with Blackboard.open(v3_file, create=False, readonly=True) as board:  # read as it is
        run = board.run(1)
        assert (run.config.top_k, run.config.human_model, run.config.stop, run.config.contentiousness_decay) == (
            None,
            None,
            "pxp",
            0.25,
        )
    with Blackboard.open(v3_file) as board:
        assert board.schema_version == schema.SCHEMA_VERSION >= 6  # through 4 (annotations), 5 (distributions), 6, ...
        assert board.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == before
        assert board.db.execute("SELECT COUNT(*) FROM messages WHERE distribution IS NOT NULL").fetchone()[0] == 0
        assert list(board.db.query("SELECT * FROM round_information")) == []
        assert board.db.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 0
        assert board.run(1).config.stop == "pxp"
        assert board.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # a migrated file measures new rounds like a new one
        found = fill(board, random.Random(5), 3)
        assert len(stored(board)) == sum(len(rounds_of(by_j)) for by_j in found.values())


def test_merge_recomputes_the_rounds_and_carries_the_settings(tmp_path: Path, v3_file: Path) -> None:
    source = tmp_path / "source.db"
    with Blackboard.open(source) as board:
        fill(board, random.Random(9), 8)
        rounds_before = sorted(tuple(r[m] for m in ("round", *MEASURES)) for r in stored(board).values())
        finals = sorted(
            r[0] for r in board.db.execute("SELECT final_distribution FROM data WHERE final_distribution IS NOT NULL")
        )
    target = tmp_path / "target.db"
    with Blackboard.open(target) as board:
        merge(board, [source, v3_file])
        after = sorted(tuple(r[m] for m in ("round", *MEASURES)) for r in stored(board).values())
        assert after == pytest.approx(rounds_before) and len(after) == len(rounds_before)
        merged = [r for r in board.runs() if r.config.top_k == 5]
        assert len(merged) == 1 and (merged[0].config.human_model, merged[0].config.contentiousness, merged[0].config.stop) == (
            "offline",
            0.9,
            "both",
        )
        assert sorted(
            r[0] for r in board.db.execute("SELECT final_distribution FROM data WHERE final_distribution IS NOT NULL")
        ) == [*finals]
