"""Exports a person opens: one run alone as a flat ``messages`` table (csv, xlsx), pictures only when asked,
text exactly as the blackboard holds it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import offline_run, pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.protocol.intelligibility import CLASSES

FLAT = ["run_id", "session", "session_id", "instance_key", "expert", "j", "sender", "receiver", "tag", "prediction",
        "explanation", "created_at", "seconds"]  # fmt: skip


@pytest.fixture
def two_runs(db_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    offline_run(capsys, db_path, "--limit", "2")
    offline_run(capsys, db_path, "--limit", "3")
    return db_path


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def stored(db: Path, sql: str, *params: object) -> list[tuple]:
    with Blackboard.open(db, create=False, readonly=True) as board:
        return list(board.db.execute(sql, params))


def test_one_run_alone_as_a_flat_messages_table(two_runs: Path, tmp_path: Path, capsys) -> None:
    code, _, err = pxp(capsys, "export", "--db", two_runs, "--run", "2", "--format", "csv", "--out", tmp_path / "out")
    assert code == 0, err
    messages = rows(tmp_path / "out" / "messages.csv")
    header = list(messages[0])
    assert header[: len(FLAT)] == FLAT and set(CLASSES) <= set(header)
    expected = stored(
        two_runs,
        "SELECT d.ord + 1, i.key, m.j, m.sender, m.tag, m.prediction, m.explanation FROM messages m JOIN data d USING (session_id)"
        " JOIN instances i ON i.id = d.instance_id WHERE d.run_id = 2 ORDER BY d.ord, m.j",
    )
    assert [(int(m["session"]), m["instance_key"], int(m["j"]), m["sender"], m["tag"], m["prediction"], m["explanation"])
            for m in messages] == expected  # fmt: skip
    assert {m["run_id"] for m in messages} == {"2"} and {m["expert"] for m in messages} == {"proxy"}
    flags = {(r[0] + 1, r[1]) for r in stored(two_runs, "SELECT ord, two_way FROM session_intelligibility WHERE run_id = 2")}
    assert {(int(m["session"]), int(m["two_way"])) for m in messages} == flags
    sessions = rows(tmp_path / "out" / "sessions.csv")
    # counted from 1, as the screen says "session 1 of 3"
    assert [int(s["session"]) for s in sessions] == [1, 2, 3] and {s["run_id"] for s in sessions} == {"2"}
    assert [r["id"] for r in rows(tmp_path / "out" / "runs.csv")] == ["2"]


def test_pictures_only_when_asked(two_runs: Path, tmp_path: Path, capsys) -> None:
    pxp(capsys, "export", "--db", two_runs, "--run", "1", "--format", "json", "--out", tmp_path / "plain")
    assert not (tmp_path / "plain" / "images.json").exists()
    code, _, err = pxp(
        capsys, "export", "--db", two_runs, "--run", "1", "--format", "json", "--with-images", "--out", tmp_path / "img"
    )
    assert code == 0, err
    images = json.loads((tmp_path / "img" / "images.json").read_text(encoding="utf-8"))
    used = stored(two_runs, "SELECT DISTINCT image_sha FROM instances i JOIN data d ON d.instance_id = i.id WHERE d.run_id = 1")
    assert sorted(i["sha256"] for i in images) == sorted(u[0] for u in used if u[0])


HOSTILE = '=HYPERLINK("http://x","y")\n+1 -2 @SUM(A1) _x0041_ bell\x07 tab\tend'


def test_the_spreadsheet_opens_with_every_message_as_text(two_runs: Path, tmp_path: Path, capsys) -> None:
    from openpyxl import load_workbook
    from openpyxl.utils.escape import unescape  # OOXML's _xHHHH_, as a spreadsheet reads it

    with Blackboard.open(two_runs) as board:
        board.db.execute("UPDATE messages SET explanation = ? WHERE session_id = 1 AND j = 1", [HOSTILE])
        board.db.conn.commit()
    code, _, err = pxp(capsys, "export", "--db", two_runs, "--run", "1", "--format", "xlsx", "--out", tmp_path / "x")
    assert code == 0, err
    sheet = load_workbook(tmp_path / "x" / "messages.xlsx").active
    table = list(sheet.iter_rows(values_only=True))
    header, body = list(table[0]), table[1:]
    assert header[: len(FLAT)] == FLAT
    expected = stored(two_runs, "SELECT m.explanation FROM messages m JOIN data d USING (session_id) WHERE d.run_id = 1 "
                      "ORDER BY d.ord, m.j")  # fmt: skip
    column = header.index("explanation")
    assert [unescape(r[column]) for r in body] == [e[0] for e in expected]
    assert unescape(body[0][column]) == HOSTILE  # every character kept
    assert sheet.cell(row=2, column=column + 1).data_type == "s"  # text: "=HYPERLINK(...)" is not a formula
    assert sheet.freeze_panes == "A2"  # the header stays in view
    assert sheet.auto_filter.ref == f"A1:{sheet.cell(row=1, column=len(header)).column_letter}{len(table)}"  # a filter on each
    for name in ("runs", "sessions", "instances"):
        assert (tmp_path / "x" / f"{name}.xlsx").exists()
