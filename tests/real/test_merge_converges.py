"""``pxp merge`` again brings a run's copy up to date, refuses copies that diverged, and a copy is never driven.

The runs merged are real: ``pxp run --headless`` processes writing (offline model, a little latency), paused
by SIGTERM and resumed, merged while they write. The check is the strongest a user could make: every table's
rows of the run, ids aside, are the same in the merged file as in the file the run was written to.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pxp_harness.cli_helpers import digest, offline_run, pxp
from pxp_tui.blackboard import Blackboard, BlackboardError, notes
from pxp_tui.runs.execute import execute

from .test_run_status import headless, wait_for_messages

#: tables whose rows belong to a session: compared by the session's order in its run
BY_SESSION = ("messages", "context", "rounds", "annotations")


def _values(row: sqlite3.Row, skip: Any) -> tuple:
    """A row's values but the columns ``skip`` accepts (ids, which differ from file to file)."""
    return tuple(row[c] for c in row.keys() if not skip(c))  # noqa: SIM118 - sqlite3.Row iterates over values


def run_tables(db: Path, uid: str) -> dict[str, Any]:
    """Every table's rows of run ``uid``, with ids replaced by what identifies them in any file."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        run = dict(conn.execute("SELECT * FROM runs WHERE uid = ?", [uid]).fetchone())
        keys = dict(conn.execute("SELECT id, key FROM instances WHERE dataset = ?", [run["dataset"]]).fetchall())
        options = json.loads(run.pop("options"))
        options.pop("merged_from", None)
        run.update(options=options, plan=[keys[i] for i in json.loads(run["plan"])])
        run_id = run.pop("id")
        ords = dict(conn.execute("SELECT session_id, ord FROM data WHERE run_id = ?", [run_id]).fetchall())
        marks = ",".join(map(str, ords))
        found: dict[str, Any] = {"runs": run}
        data = conn.execute(f"SELECT * FROM data WHERE run_id = {run_id}").fetchall()
        found["data"] = sorted((keys[r["instance_id"]], *_values(r, lambda c: c.endswith("_id"))) for r in data)
        for table in BY_SESSION:
            rows = conn.execute(f"SELECT * FROM {table} WHERE session_id IN ({marks})").fetchall()
            found[table] = sorted((ords[r["session_id"]], *_values(r, lambda c: c in ("session_id", "run_id"))) for r in rows)
        measured = conn.execute(f"SELECT * FROM evaluations WHERE run_id = {run_id} ORDER BY id").fetchall()
        found["evaluations"] = [(ords.get(e["session_id"]), *_values(e, lambda c: c.endswith("id"))) for e in measured]
        return found
    finally:
        conn.close()


def uid_of(db: Path, run_id: int = 1) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT uid FROM runs WHERE id = ?", [run_id]).fetchone()[0]
    finally:
        conn.close()


def status_in(db: Path, uid: str) -> tuple[str, int]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT r.status, COUNT(m.j) FROM runs r JOIN data d ON d.run_id = r.id JOIN messages m USING (session_id) "
            "WHERE r.uid = ?",
            [uid],
        ).fetchone()
    finally:
        conn.close()


def merge(capsys, out: Path, *inputs: Path) -> str:
    code, printed, err = pxp(capsys, "merge", out, *inputs)
    assert code == 0, err
    return printed


@pytest.mark.slow
def test_a_run_merged_while_it_is_written_then_again_after_it_finished_is_the_same_rows(capsys, tmp_path: Path) -> None:
    source, out = tmp_path / "alice.db", tmp_path / "all.db"
    process = headless(source, "--model", "offline", "--human", "proxy", "--limit", "6", "--quiet")
    wait_for_messages(source, 4, process)
    merge(capsys, out, source)  # a snapshot of a run being written
    uid = uid_of(source)
    status, copied = status_in(out, uid)
    assert status == "running"  # it was copied mid-run, so the second merge has something to bring
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert status_in(source, uid)[1] > copied
    printed = merge(capsys, out, source)
    assert "0 run(s) added" in printed and "1 brought up to date (ids 1->1)" in printed
    assert run_tables(out, uid) == run_tables(source, uid)
    before = digest(out)
    assert "1 already up to date" in merge(capsys, out, source)
    assert digest(out) == before  # a third merge changes nothing


@pytest.mark.slow
def test_a_paused_run_merged_then_resumed_where_it_was_written_and_merged_again(capsys, tmp_path: Path) -> None:
    source, out = tmp_path / "alice.db", tmp_path / "all.db"
    offline_run(capsys, out, "--limit", "2")  # the target has a run of its own: ids and session ids differ
    # a debate with distributions (rounds) and measurements of the machine (evaluations), so every table has rows
    debate = ("--task", "rad", "--human", "model:offline", "--top-k", "3", "--evaluate")
    process = headless(source, "--model", "offline", *debate, "--limit", "4", "--quiet")
    wait_for_messages(source, 3, process)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    uid = uid_of(source)
    merge(capsys, out, source)
    assert status_in(out, uid)[0] == "paused"
    with Blackboard.open(out, create=False, readonly=True) as merged:
        copy = merged.db.execute("SELECT id FROM runs WHERE uid = ?", [uid]).fetchone()[0]
    # the copy is not the original: refused, naming where the original lives
    code, _, err = pxp(capsys, "run", "--headless", "--resume", copy, "--db", out)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"run {copy} is a copy merged from {source}" in err and f"--resume 1 --db {source}" in err
    with Blackboard.open(source) as board:  # the expert flags a session meanwhile
        notes.save(board, notes.Annotation(1, flagged=True, note="the effusion: look again"))
    code, _, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", source, "--quiet")
    assert code == 0, err
    printed = merge(capsys, out, source)
    assert f"1 brought up to date (ids 1->{copy})" in printed
    assert status_in(out, uid)[0] == "done"
    written = run_tables(source, uid)
    assert written["rounds"] and written["annotations"] and len(written["evaluations"]) > 2
    assert run_tables(out, uid) == written


def paused_copy(capsys, tmp_path: Path, out: str = "all.db") -> tuple[Path, Path]:
    """alice.db with a paused run, merged into ``out``."""
    source = tmp_path / "alice.db"
    offline_run(capsys, source, "--limit", "2")
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("UPDATE runs SET status = 'paused', finished_at = NULL")
    conn.close()
    merge(capsys, tmp_path / out, source)
    return source, tmp_path / out


def test_a_copy_is_never_driven_even_by_the_engine_directly(capsys, tmp_path: Path) -> None:
    source, out = paused_copy(capsys, tmp_path)
    with Blackboard.open(out) as board, pytest.raises(BlackboardError, match="is a copy merged from"):
        asyncio.run(execute(board, 1))
    assert status_in(out, uid_of(source))[0] == "paused"


def diverged_pair(capsys, tmp_path: Path) -> tuple[Path, Path, Path]:
    """alice.db and a plain copy of it (bob.db), the same paused run resumed in each: one uid driven twice."""
    alice, bob, out = tmp_path / "alice.db", tmp_path / "bob.db", tmp_path / "all.db"
    offline_run(capsys, alice, "--limit", "3")
    conn = sqlite3.connect(alice)
    with conn:  # as if paused after the first message
        conn.execute("DELETE FROM context WHERE session_id > 1 OR j > 1")
        conn.execute("DELETE FROM messages WHERE session_id > 1 OR j > 1")
        conn.execute("DELETE FROM data WHERE session_id > 1")
        conn.execute(
            "UPDATE data SET ended_at = NULL, stop_reason = NULL, n_messages = 1, context_kept = NULL, "
            "final_distribution = NULL, final_weights = NULL"
        )
        conn.execute("UPDATE runs SET status = 'paused', finished_at = NULL")
    conn.close()
    shutil.copy(alice, bob)
    for path in (alice, bob):
        code, _, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", path, "--quiet")
        assert code == 0, err
    return alice, bob, out


def test_copies_that_diverged_are_refused_and_the_file_is_unchanged(capsys, tmp_path: Path) -> None:
    alice, bob, out = diverged_pair(capsys, tmp_path)
    merge(capsys, out, alice)
    before = digest(out)
    code, _, err = pxp(capsys, "merge", out, bob)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"run 1 of {bob} and run 1 of {out}" in err
    assert "session 1's message 2 is not the same in both" in err and "driven in two places" in err
    assert digest(out) == before


def test_an_older_copy_leaves_the_newer_one_and_a_note_written_later_wins(capsys, tmp_path: Path) -> None:
    source, early, out = tmp_path / "alice.db", tmp_path / "early.db", tmp_path / "all.db"
    offline_run(capsys, source, "--limit", "3")
    shutil.copy(source, early)
    conn = sqlite3.connect(early)
    with conn:  # an earlier snapshot: the last session's last message not yet written, the run still going
        conn.execute("DELETE FROM messages WHERE session_id = 3 AND j = (SELECT MAX(j) FROM messages WHERE session_id = 3)")
        conn.execute("UPDATE runs SET status = 'running', finished_at = NULL")
    conn.close()
    merge(capsys, out, source)
    uid = uid_of(source)
    with Blackboard.open(early) as board:
        notes.save(board, notes.Annotation(2, flagged=True, note="look again"))
    printed = merge(capsys, out, early)
    assert "1 already up to date" in printed
    tables = run_tables(out, uid)
    assert status_in(out, uid)[0] == "done" and tables["messages"] == run_tables(source, uid)["messages"]
    assert [(o, flagged, note) for o, flagged, note, _ in tables["annotations"]] == [(1, 1, "look again")]


def test_merging_a_copy_chain_names_the_original(capsys, tmp_path: Path) -> None:
    source, middle = paused_copy(capsys, tmp_path, "lab.db")
    out = tmp_path / "all.db"
    merge(capsys, out, middle)
    code, _, err = pxp(capsys, "run", "--headless", "--resume", "1", "--db", out)
    assert code == 2 and f"merged from {source} (run 1 there)" in err


async def test_the_start_screen_lists_a_copy_as_continued_elsewhere_and_ctrl_r_skips_it(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import OptionList

    from pxp_harness.app_helpers import wait_for
    from pxp_tui.app.shell.pxp_app import PXPApp
    from pxp_tui.app.start import screen as start

    monkeypatch.setenv("PXP_IMAGES", "none")
    _, out = await asyncio.to_thread(paused_copy, capsys, tmp_path)  # run 1 of all.db: a copy
    with Blackboard.open(out) as board:  # run 2: all.db's own, unfinished
        from pxp_tui.config import RunConfig
        from pxp_tui.runs.create import create_run

        create_run(board, RunConfig(limit=2))
    app = PXPApp(out)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await wait_for(pilot, lambda: isinstance(app.screen, start.StartScreen) and app.screen, "the start screen")
        runs = screen.query_one("#start-unfinished", OptionList)
        await wait_for(pilot, lambda: runs.option_count == 2, "the unfinished runs")
        own, copy = runs.get_option_at_index(0), runs.get_option_at_index(1)
        assert (own.id, own.disabled) == ("2", False) and copy.disabled
        assert "copy: continue it in alice.db" in str(copy.prompt)
        assert runs.highlighted == 0
