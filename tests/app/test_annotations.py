"""Skip, flag and note: what annotation tools taught experts to expect, in the blackboard and the commands: a skipped
instance (recorded, measured nowhere, listed in review, not re-offered on resume), flags and notes (stored, filtered,
exported, merged), the expert's time per answer (stored per message, in `pxp report`)."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import digest, pxp
from pxp_harness.scripted import ScriptedAgent, split_script
from pxp_tui.blackboard import Blackboard, notes, review, schema
from pxp_tui.blackboard.metrics import run_rows, session_tags
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import InstanceSkippedError, Reply, RunSpec, Turn, interact
from pxp_tui.protocol import StopReason
from pxp_tui.tasks import get_task

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackboard-v2.db.gz"
RATIFIED = ["INIT", "RATIFY", "RATIFY"]


class Expert(ScriptedAgent):
    """A live expert's stand-in: skips the sessions (by order) in ``skips``, times each answer as ``answer_ms``."""

    def __init__(self, scripts, skips=(), times=None) -> None:
        super().__init__(scripts)
        self.skips = set(skips)
        self.times = list(times or [])

    async def respond(self, turn: Turn) -> Reply:
        if turn.order in self.skips:
            self.skips.discard(turn.order)
            raise InstanceSkippedError()
        reply = await super().respond(turn)
        meta = {**reply.meta, "answer_ms": self.times.pop(0)} if self.times else reply.meta
        return Reply(reply.tag, reply.prediction, reply.explanation, meta)


def live_run(board: Blackboard, sessions: int, expert: str = "alice") -> tuple[int, list]:
    if not board.has_dataset("demo-drug"):
        board.add_dataset("demo-drug", "drug", get_task("drug").demo_rows(), source="bundled demo")
    ids = board.instance_ids("demo-drug")[:sessions]
    config = RunConfig(task="drug", dataset="demo-drug", model="script", checker="script", human_kind=HumanKind.LIVE)
    run_id = board.create_run(replace(config, expert=expert, n=6, k=3, context="all"), ids)
    return run_id, board.instances(ids)


async def drive(board: Blackboard, run_id: int, instances: list, expert: Expert, *, sessions: list[list[str]]) -> None:
    machine_scripts, _ = zip(*(split_script(s) for s in sessions), strict=True)
    machine = ScriptedAgent(machine_scripts)
    await interact(RunSpec(run_id, n=6, k=3), instances, machine, expert, board, progress=board.progress(run_id, instances))


async def test_a_skipped_instance_is_recorded_without_a_message_and_measured_nowhere(db_path: Path, capsys) -> None:
    with Blackboard.open(db_path) as board:
        run_id, instances = live_run(board, 3)
        _, human_scripts = zip(*(split_script(RATIFIED) for _ in range(3)), strict=True)
        await drive(board, run_id, instances, Expert(human_scripts, skips={1}), sessions=[RATIFIED] * 3)
        data = list(board.db.query("SELECT ord, stop_reason, n_messages FROM data WHERE run_id = ? ORDER BY ord", [run_id]))
        assert [(d["ord"], d["stop_reason"]) for d in data] == [(0, "ratified"), (1, "skipped"), (2, "ratified")]
        # the skipped session holds the machine's INIT only: nothing of the expert's, nothing changed
        skipped_id = board.db.execute("SELECT session_id FROM data WHERE ord = 1 AND run_id = ?", [run_id]).fetchone()[0]
        assert [(m.j, m.tag.value) for m in board.session_messages(skipped_id)] == [(1, "INIT")]
        assert board.run(run_id).status == "done"
        # measured nowhere: the view (pxp metrics, the report), the live metrics' tags, the curves
        view = run_rows(board, [run_id])[0]
        assert (view["sessions"], view["two_way"], view["strong_human"]) == (2, 2, 2)
        assert len(session_tags(board, run_id)) == 2
        from pxp_tui.blackboard.curves import run_curves

        assert run_curves(board, [run_id])[run_id][-1].sessions == 2
        assert board.db.execute("SELECT COUNT(*) FROM session_performance WHERE run_id = ?", [run_id]).fetchone()[0] == 2
        # listed in review, as skipped, and filterable
        page = review.sessions(board, run_id)
        assert [r.stop_reason for r in page.rows] == ["ratified", "skipped", "ratified"]
        assert [r.order for r in review.sessions(board, run_id, review.Query(kind="skipped")).rows] == [1]
        assert review.sessions(board, run_id, review.Query(kind="unfinished")).total == 0
        assert notes.skipped(board, run_id) == 1
    code, out, _ = pxp(capsys, "metrics", "--db", db_path, "--json")
    assert code == 0 and json.loads(out)[0]["sessions"] == 2
    code, out, _ = pxp(capsys, "report", "--db", db_path, "--format", "csv")
    assert code == 0 and ",sessions,2,2,2," in out


async def test_resume_does_not_offer_a_skipped_instance_again(db_path: Path) -> None:
    with Blackboard.open(db_path) as board:
        run_id, instances = live_run(board, 2)
        expert = Expert([["RATIFY"], ["RATIFY"]], skips={0})
        machine = ScriptedAgent([["INIT", "RATIFY"], ["INIT", "RATIFY"]])
        machine.fail_at.add((1, 1))  # the run stops after the skip, at the next session's first message
        with pytest.raises(Exception, match="scripted failure"):
            await interact(RunSpec(run_id, n=6, k=3), instances, machine, expert, board)
        progress = board.progress(run_id, instances)
        assert [r.stop for r in progress.done] == [StopReason.SKIPPED] and not progress.kept  # not carried
        await interact(RunSpec(run_id, n=6, k=3), instances, machine, expert, board, progress=progress)
        assert [t.order for t in expert.turns] == [1]  # the skipped instance was not asked again
        stops = [r[0] for r in board.db.execute("SELECT stop_reason FROM data WHERE run_id = ? ORDER BY ord", [run_id])]
        assert stops == ["skipped", "ratified"]


async def test_flags_and_notes_are_stored_filtered_exported_and_merged(db_path: Path, tmp_path: Path, capsys) -> None:
    with Blackboard.open(db_path) as board:
        run_id, instances = live_run(board, 3)
        await drive(board, run_id, instances, Expert([["RATIFY"]] * 3), sessions=[RATIFIED] * 3)
        first, second, third = (r.session_id for r in review.sessions(board, run_id).rows)
        notes.save(board, notes.Annotation(first, flagged=True, note="check the | amide\nagain"))
        notes.save(board, notes.Annotation(second, note="fine"))
        notes.save(board, notes.Annotation(third, flagged=True))
        notes.save(board, notes.Annotation(third))  # cleared: no row left
        assert notes.get(board, first) == notes.Annotation(first, True, "check the | amide\nagain")
        assert notes.get(board, third).empty
        assert board.db.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 2
        rows = review.sessions(board, run_id).rows
        assert [(r.flagged, r.note) for r in rows] == [(True, "check the | amide\nagain"), (False, "fine"), (False, "")]
        assert [r.session_id for r in review.sessions(board, run_id, review.Query(kind="flagged")).rows] == [first]
        assert [r.session_id for r in review.sessions(board, run_id, review.Query(kind="noted")).rows] == [first, second]
        assert review.replay(board, first).annotation == notes.Annotation(first, True, "check the | amide\nagain")
        with pytest.raises(ValueError, match="no session 999"):
            notes.save(board, notes.Annotation(999, note="x"))
    # pxp export carries them
    code, _, err = pxp(capsys, "export", "--db", db_path, "--format", "json", "--table", "annotations", "--out", tmp_path / "out")
    assert code == 0, err
    exported = json.loads((tmp_path / "out" / "annotations.json").read_text())
    assert [(a["session_id"], a["flagged"], a["note"]) for a in exported] == [
        (first, 1, "check the | amide\nagain"),
        (second, 0, "fine"),
    ]
    # pxp merge carries them, with the sessions' new ids
    merged = tmp_path / "merged.db"
    with Blackboard.open(merged) as board:
        other, other_instances = live_run(board, 1, expert="bob")
        await drive(board, other, other_instances, Expert([["RATIFY"]]), sessions=[RATIFIED])
    before = digest(db_path)
    code, _, err = pxp(capsys, "merge", merged, db_path)
    assert code == 0, err
    assert digest(db_path) == before
    with Blackboard.open(merged, readonly=True) as board:
        (new_run,) = [r.id for r in board.runs() if r.config.expert == "alice"]
        rows = review.sessions(board, new_run).rows
        assert [(r.flagged, r.note) for r in rows] == [(True, "check the | amide\nagain"), (False, "fine"), (False, "")]
        assert {r.session_id for r in rows} == {
            r[0] for r in board.db.execute("SELECT session_id FROM annotations UNION SELECT ?", [rows[2].session_id])
        }


async def test_time_per_answer_is_stored_per_message_and_reported_per_run_and_expert(db_path: Path, capsys, tmp_path) -> None:
    with Blackboard.open(db_path) as board:
        run_a, instances = live_run(board, 2, expert="alice")
        await drive(board, run_a, instances, Expert([["RATIFY"]] * 2, times=[4000, 10000]), sessions=[RATIFIED] * 2)
        run_b, instances = live_run(board, 1, expert="alice")
        await drive(board, run_b, instances, Expert([["RATIFY"]], times=[30000]), sessions=[RATIFIED])
        sql = "SELECT d.ord, m.j, m.answer_ms FROM messages m JOIN data d USING (session_id) WHERE run_id = ? ORDER BY 1, 2"
        timed = board.db.execute(sql, [run_a]).fetchall()
        assert timed == [(0, 1, None), (0, 2, 4000.0), (0, 3, None), (1, 1, None), (1, 2, 10000.0), (1, 3, None)]
        assert notes.answer_times(board, [run_a, run_b]) == {run_a: [4000.0, 10000.0], run_b: [30000.0]}
    code, out, err = pxp(capsys, "report", "--db", db_path, "--out", tmp_path / "report")
    assert code == 0, err
    section = out.split("## Time per answer", 1)[1]
    assert f"| run | {run_a} (alice) | 1 | 2 | 7.0 | 4.0 | 10.0 |" in section
    assert f"| run | {run_b} (alice) | 1 | 1 | 30.0 | 30.0 | 30.0 |" in section
    assert "| expert | alice | 2 | 3 | 10.0 | 4.0 | 30.0 |" in section
    assert "expert,alice,2,3,10.0,4.0,30.0" in (tmp_path / "report" / "answer_times.csv").read_text()


def test_a_report_without_timed_answers_says_so(db_path: Path, capsys) -> None:
    code, _, err = pxp(
        capsys, "run", "--headless", "--model", "offline", "--human", "proxy", "--db", db_path, "--quiet", "--limit", "1"
    )
    assert code == 0, err
    code, out, _ = pxp(capsys, "report", "--db", db_path)
    assert "## Time per answer\n\nNo answer timed" in out


# -- the schema change -----------------------------------------------------------------------------
@pytest.fixture
def v2_file(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def columns(path: Path, table: str) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def test_an_old_file_migrates_to_annotations_and_answer_times(v2_file: Path) -> None:
    assert "answer_ms" not in columns(v2_file, "messages") and columns(v2_file, "annotations") == []
    with Blackboard.open(v2_file) as board:
        assert board.schema_version == schema.SCHEMA_VERSION
        assert board.db.execute("SELECT COUNT(*) FROM messages WHERE answer_ms IS NOT NULL").fetchone()[0] == 0
        session = review.sessions(board, 1).rows[0]
        notes.save(board, notes.Annotation(session.session_id, flagged=True, note="after the upgrade"))
        assert review.sessions(board, 1, review.Query(kind="flagged")).total == 1
        assert run_rows(board, [1])[0]["sessions"] == 2  # the old sessions still counted
    assert "answer_ms" in columns(v2_file, "messages")
    assert columns(v2_file, "annotations") == ["session_id", "run_id", "flagged", "note", "updated_at"]


def test_a_read_only_reader_of_an_old_file_shows_no_flags_and_filters_to_nothing(v2_file: Path) -> None:
    before = digest(v2_file)
    with Blackboard.open(v2_file, create=False, readonly=True) as board:
        rows = review.sessions(board, 1).rows
        assert [(r.flagged, r.note) for r in rows] == [(False, ""), (False, "")]
        assert review.sessions(board, 1, review.Query(kind="flagged")).total == 0
        assert review.sessions(board, 1, review.Query(kind="skipped")).total == 0
        assert review.replay(board, rows[0].session_id).annotation == notes.Annotation(rows[0].session_id)
        assert notes.answer_times(board, [1]) == {1: []}
    assert digest(v2_file) == before


def test_pxp_merge_of_an_old_file_into_a_current_one_brings_no_annotations(v2_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "merged.db"
    Blackboard.open(out).close()
    code, _, err = pxp(capsys, "merge", out, v2_file)
    assert code == 0, err
    with Blackboard.open(out, readonly=True) as board:
        assert board.db.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 0
        assert len(board.runs()) == 2
