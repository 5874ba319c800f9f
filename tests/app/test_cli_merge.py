"""``pxp merge``: runs from several files in one, ids remapped, who did what kept, counts unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pxp_harness.boards import EVERY_CLASS, scripted_run
from pxp_harness.cli_helpers import digest, offline_run, pxp
from pxp_tui.blackboard import Blackboard, review
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.tasks.base import DatasetRow

COUNTED = (
    "sessions",
    "one_way_human",
    "one_way_machine",
    "two_way",
    "strong_human",
    "strong_machine",
    "ultra_strong_human",
    "ultra_strong_machine",
)


def metrics(capsys, db: Path) -> list[dict]:
    code, out, _ = pxp(capsys, "metrics", "--db", db, "--json")
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize("how", ["positional", "--out first", "--out last"])
def test_a_merged_blackboard_reports_both_runs_with_unchanged_counts(tmp_path: Path, capsys, how: str) -> None:
    a, b, out = tmp_path / "alice.db", tmp_path / "bob.db", tmp_path / "all.db"
    offline_run(capsys, a, "--limit", "4")
    offline_run(capsys, b, "--limit", "6", "--seed", "3")
    before = [metrics(capsys, a)[0], metrics(capsys, b)[0]]
    args = {"positional": (out, a, b), "--out first": ("--out", out, a, b), "--out last": (a, b, "--out", out)}[how]
    code, _printed, err = pxp(capsys, "merge", *args)
    assert code == 0, err
    after = metrics(capsys, out)
    assert [r["run_id"] for r in after] == [1, 2]  # both files had a run 1: no clash
    assert [{k: r[k] for k in COUNTED} for r in after] == [{k: r[k] for k in COUNTED} for r in before]
    code, report, _ = pxp(capsys, "report", "--db", out, "--format", "csv")
    assert {row.split(",")[1] for row in report.splitlines()[1:]} == {"1", "2"}
    with Blackboard.open(out, create=False, readonly=True) as merged:
        runs = merged.db.execute("SELECT uid, options FROM runs ORDER BY id").fetchall()
        assert [json.loads(o)["merged_from"]["file"] for _, o in runs] == ["alice.db", "bob.db"]
        for source, (uid, _) in zip((a, b), runs, strict=True):
            with Blackboard.open(source, create=False, readonly=True) as original:
                assert original.db.execute("SELECT uid FROM runs").fetchone()[0] == uid
                theirs = original.db.execute(
                    "SELECT tag, prediction, explanation FROM messages ORDER BY session_id, j"
                ).fetchall()
            ours = merged.db.execute(
                "SELECT tag, prediction, explanation FROM messages m JOIN data d USING (session_id) "
                "JOIN runs r ON r.id = d.run_id WHERE r.uid = ? ORDER BY m.session_id, m.j",
                [uid],
            ).fetchall()
            assert ours == theirs
        assert merged.db.execute("SELECT COUNT(*) FROM datasets").fetchone()[0] == 1  # the same demo, shared


async def test_merging_keeps_experts_apart_and_is_idempotent(tmp_path: Path, capsys) -> None:
    scripts = [tags for _, tags in EVERY_CLASS]
    paths = []
    for human in ("h1", "h2"):
        path = tmp_path / f"{human}.db"
        with Blackboard.open(path) as board:
            await scripted_run(board, scripts, human=human)
        paths.append(path)
    out = tmp_path / "all.db"
    pxp(capsys, "merge", out, *paths)
    before = digest(out)
    code, printed, _ = pxp(capsys, "merge", out, paths[0])
    assert code == 0 and f"0 run(s) added (ids none), 0 sessions, 0 messages; 1 already up to date in {out}" in printed
    assert digest(out) == before
    with Blackboard.open(out, create=False, readonly=True) as merged:
        runs = review.runs(merged)
        assert [(r.run.id, r.run.human) for r in runs] == [(1, "h1"), (2, "h2")]
        page = review.sessions(merged, 2, review.Query(kind="two_way"))
        assert page.total == runs[1].counts.two_way > 0
        replay = review.replay(merged, page.rows[0].session_id)
        assert replay.run.human == "h2" and replay.instance.dataset == "demo-drug"


def test_a_dataset_that_differs_is_copied_under_a_new_name(tmp_path: Path, capsys) -> None:
    paths = []
    for name, reference in (("one", "CC.O"), ("two", "CCC.O")):
        path = tmp_path / f"{name}.db"
        with Blackboard.open(path) as board:
            board.add_dataset("mine", "drug", [DatasetRow("k", "train", "CCO", reference, "e")])
            board.create_run(
                RunConfig(dataset="mine", model="m", human_kind=HumanKind.LIVE, expert=name),
                board.instance_ids("mine"),
            )
        paths.append(path)
    out = tmp_path / "all.db"
    _code, printed, _ = pxp(capsys, "merge", out, *paths)
    assert "copied as 'mine@two'" in printed
    with Blackboard.open(out, create=False, readonly=True) as merged:
        rows = merged.db.execute(
            "SELECT r.expert, i.reference_prediction FROM runs r JOIN instances i ON i.dataset = r.dataset ORDER BY r.id"
        ).fetchall()
    assert rows == [("one", "CC.O"), ("two", "CCC.O")]


@pytest.mark.parametrize("bad", ["missing", "not-sqlite", "same-as-out", "twice"])
def test_bad_input_is_one_line_exit_2_and_out_unchanged(tmp_path: Path, capsys, bad: str) -> None:
    out, good = tmp_path / "out.db", tmp_path / "good.db"
    offline_run(capsys, good, "--limit", "2")
    if bad != "twice":
        offline_run(capsys, out, "--limit", "2")
    before = digest(out) if out.exists() else None
    inputs = {
        "missing": [good, tmp_path / "nope.db"],
        "not-sqlite": [good, tmp_path / "notes.txt"],
        "same-as-out": [good, out],
        "twice": [good, good],
    }[bad]
    (tmp_path / "notes.txt").write_text("not a blackboard")
    code, _, err = pxp(capsys, "merge", out, *inputs)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert (digest(out) if out.exists() else None) == before  # twice: OUT is not even created


def test_merge_without_an_input_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    for args in ([tmp_path / "all.db"], ["--out", tmp_path / "all.db"]):
        code, _, err = pxp(capsys, "merge", *args)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "input" in err, err
    assert not (tmp_path / "all.db").exists()
