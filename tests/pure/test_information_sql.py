"""The SQL recomputation of EVINCE's measures agrees with the Python one, on random sessions."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pxp_tui.blackboard.information_sql import round_information_sql, session_information_sql
from pxp_tui.protocol.evince import MI_MEASURES, NMI, rounds_of, summarise
from pxp_tui.tasks.rad.labels import LABELS

#: labels with characters that JSON paths and SQL strings would trip on
NOMINAL = ("CCO.CC(=O)Cl", "C/C=C\\C", "it's", 'say "x"', "a.b[0]", "$.x")
weight = st.one_of(st.just(0.0), st.just(1.0), st.floats(min_value=1e-6, max_value=100))


@st.composite
def distribution(draw: st.DrawFn, labels: tuple[str, ...]) -> dict[str, float]:
    keys = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=len(labels), unique=True))
    values = draw(st.lists(weight, min_size=len(keys), max_size=len(keys)).filter(lambda v: sum(v) > 0))
    return dict(zip(keys, values, strict=True))  # raw weights: both computations normalise


@st.composite
def sessions(draw: st.DrawFn) -> tuple[tuple[str, ...] | None, dict[int, dict[int, dict[str, float] | None]]]:
    ordered = draw(st.booleans())
    labels = LABELS if ordered else NOMINAL
    found = {}
    for session_id in range(1, draw(st.integers(1, 3)) + 1):
        messages = draw(st.integers(1, 7))
        found[session_id] = {
            j: None if draw(st.integers(0, 9)) == 0 else draw(distribution(labels)) for j in range(1, messages + 1)
        }
    return (LABELS if ordered else None), found


def database(found: dict[int, dict[int, dict[str, float] | None]], order, mi: str = NMI) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE messages (session_id INTEGER, j INTEGER, sender TEXT, distribution TEXT, PRIMARY KEY (session_id, j))"
    )
    for session_id, messages in found.items():
        for j, dist in messages.items():
            sender = "machine" if j % 2 else "human"
            db.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?)", (session_id, j, sender, None if dist is None else json.dumps(dist))
            )
    db.execute(f"CREATE VIEW round_information AS {round_information_sql('messages', order or ())}")
    db.execute(f"CREATE VIEW session_information AS {session_information_sql('round_information', mi=repr(mi))}")
    db.row_factory = sqlite3.Row
    return db


@settings(max_examples=60, deadline=None)
@given(sessions(), st.sampled_from(MI_MEASURES))
def test_the_views_equal_the_python_measures(drawn, mi: str) -> None:
    order, found = drawn
    db = database(found, order, mi)
    rows = {(r["session_id"], r["round"]): dict(r) for r in db.execute("SELECT * FROM round_information")}
    summaries = {r["session_id"]: dict(r) for r in db.execute("SELECT * FROM session_information")}
    expected_rounds = 0
    for session_id, messages in found.items():
        rounds = rounds_of({j: d for j, d in messages.items() if d is not None}, order)
        expected_rounds += len(rounds)
        for measured in rounds:
            row = rows[(session_id, measured.round)]
            for name, value in measured.as_dict().items():
                if value == float("inf"):  # a raw measure, undefined: NULL in SQL
                    assert row[name] is None, (name, session_id, measured.round)
                    continue
                assert row[name] == pytest.approx(value, rel=1e-9, abs=1e-9), (name, session_id, measured.round)
        if not rounds:
            assert session_id not in summaries
            continue
        summary, row = summarise(rounds, mi=mi), summaries[session_id]
        assert (row["rounds"], row["last_round"], row["evince_mi"]) == (summary.rounds, rounds[-1].round, mi)
        assert (row["plateau_at"], row["fig1_at"]) == (summary.plateau_at, summary.fig1_at)
        assert (row["plateau_outcome"], row["fig1_outcome"]) == (summary.plateau_outcome, summary.fig1_outcome)
        assert (row["rule_at"], row["rule_outcome"]) == (summary.fig1_at, summary.fig1_outcome)  # the view's rule: fig1
        assert row["wasserstein_first"] == pytest.approx(summary.first.wasserstein, abs=1e-9)
        assert row["normalised_mi_last"] == pytest.approx(summary.last.normalised_mi, abs=1e-9)
        assert bool(row["wasserstein_decreased"]) == summary.wasserstein_decreased
        assert bool(row["mi_increased"]) == summary.mi_increased
    assert len(rows) == expected_rounds


def test_a_worked_session_in_sql() -> None:
    found = {
        1: {
            1: {"Atelectasis": 0.6, "Pneumonia": 0.3, "Pleural Effusion": 0.1},
            2: {"Pneumonia": 0.6, "Atelectasis": 0.3, "Cardiomegaly": 0.1},
            3: {"Atelectasis": 0.5, "Pneumonia": 0.5},
            4: {"Atelectasis": 0.5, "Pneumonia": 0.5},
            5: {"Atelectasis": 1.0},
        }
    }
    db = database(found, LABELS)
    first, second = db.execute("SELECT * FROM round_information ORDER BY round").fetchall()
    assert first["mutual_information"] == pytest.approx(0.370951, abs=1e-6)  # the worked example of test_information
    assert first["wasserstein"] == pytest.approx(0.4)
    assert second["js_divergence"] == 0 and second["wasserstein"] == 0 and second["normalised_mi"] == pytest.approx(1)
    summary = db.execute("SELECT * FROM session_information").fetchone()
    assert summary["rounds"] == 2 and summary["rule_at"] is None and summary["rule_outcome"] is None
    assert summary["wasserstein_decreased"] == 1 and summary["mi_increased"] == 1
