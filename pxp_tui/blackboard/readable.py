"""The tables a person reads: one row per run, session, message and instance, each joined to what explains it.

The blackboard's own tables are normalised (``messages`` knows its session only by id, the sessions
table is ``data``); an export for a person flattens them: ``messages`` carries the run, the session's
position in it, the instance's key, the expert, how long the answer took and the session's
intelligibility flags, so that one file answers "who said what, when, and how did it end". Each
readable table holds every column of the table it flattens, so nothing is lost by reading it instead. The session's
position, ``session``, counts from 1 as the screen does ("session 1 of 3"); the blackboard's ``data.ord``, from 0.

Every query takes the runs to keep (``None``: all) as SQL parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pxp_tui.blackboard.store import Blackboard
from pxp_tui.protocol.intelligibility import CLASSES

#: the readable tables exported by default, in this order (``images`` only when asked)
DEFAULT = ("runs", "sessions", "messages", "instances")
#: every readable table
NAMES = (*DEFAULT, "images")

#: who answered in the human's seat: the expert's name, else the kind (``proxy``, ``model``)
_EXPERT = "COALESCE(r.expert, r.human_kind)"
#: a session's flags, from the ``session_intelligibility`` view
_FLAGS = ", ".join(f"s.{c}" for c in CLASSES)


@dataclass(frozen=True)
class Query:
    sql: str
    params: tuple[Any, ...]


def _columns(board: Blackboard, table: str) -> list[str]:
    return [c.name for c in board.db.table(table).columns]


def _rest(board: Blackboard, table: str, alias: str, shown: Sequence[str]) -> str:
    """``table``'s other columns (those not in ``shown``), as ``alias.column``: nothing of the table is left out."""
    rest = [c for c in _columns(board, table) if c not in shown]
    return "".join(f", {alias}.[{c}]" for c in rest)


def _in(column: str, runs: Sequence[int] | None) -> tuple[str, tuple[Any, ...]]:
    if runs is None:
        return "1", ()
    return f"{column} IN ({', '.join('?' for _ in runs)})", tuple(runs)


def _annotations(board: Blackboard) -> tuple[str, str]:
    """The flag and note columns and their join; an old file without the table gives NULLs."""
    if board.db.table("annotations").exists():
        return "a.flagged, a.note", "LEFT JOIN annotations a ON a.session_id = d.session_id"
    return "NULL AS flagged, NULL AS note", ""


def sessions(board: Blackboard, runs: Sequence[int] | None) -> Query:
    shown = ("run_id", "ord", "session_id", "instance_id", "started_at", "ended_at", "stop_reason", "n_messages")
    annotated, join = _annotations(board)
    where, params = _in("d.run_id", runs)
    sql = f"""
SELECT d.run_id, d.ord + 1 AS session, d.session_id, i.dataset, i.key AS instance_key, {_EXPERT} AS expert, r.model,
  d.started_at, d.ended_at,
  ROUND((julianday(d.ended_at) - julianday(d.started_at)) * 86400, 1) AS seconds,
  d.stop_reason, d.n_messages, s.finished, s.skipped, {_FLAGS}, {annotated},
  i.reference_prediction, i.reference_explanation, d.instance_id{_rest(board, "data", "d", shown)}
FROM data d
JOIN runs r ON r.id = d.run_id
JOIN instances i ON i.id = d.instance_id
JOIN session_intelligibility s ON s.session_id = d.session_id
{join}
WHERE {where}
ORDER BY d.run_id, d.ord"""
    return Query(sql, params)


def messages(board: Blackboard, runs: Sequence[int] | None) -> Query:
    shown = ("session_id", "j", "sender", "receiver", "tag", "prediction", "explanation", "created_at")
    where, params = _in("d.run_id", runs)
    sql = f"""
SELECT d.run_id, d.ord + 1 AS session, d.session_id, i.key AS instance_key, {_EXPERT} AS expert,
  m.j, m.sender, m.receiver, m.tag, m.prediction, m.explanation, m.created_at,
  ROUND(COALESCE(m.answer_ms, m.latency_ms) / 1000.0, 1) AS seconds,
  i.reference_prediction, d.stop_reason, {_FLAGS}{_rest(board, "messages", "m", shown)}
FROM messages m
JOIN data d ON d.session_id = m.session_id
JOIN runs r ON r.id = d.run_id
JOIN instances i ON i.id = d.instance_id
JOIN session_intelligibility s ON s.session_id = d.session_id
WHERE {where}
ORDER BY d.run_id, d.ord, m.j"""
    return Query(sql, params)


def runs_table(board: Blackboard, runs: Sequence[int] | None) -> Query:
    where, params = _in("id", runs)
    return Query(f"SELECT * FROM runs WHERE {where} ORDER BY id", params)


def _used(runs: Sequence[int] | None) -> tuple[str, tuple[Any, ...]]:
    """Instances of the runs' sessions (every instance when ``runs`` is None)."""
    if runs is None:
        return "1", ()
    where, params = _in("run_id", runs)
    return f"id IN (SELECT instance_id FROM data WHERE {where})", params


def instances(board: Blackboard, runs: Sequence[int] | None) -> Query:
    where, params = _used(runs)
    return Query(f"SELECT * FROM instances WHERE {where} ORDER BY id", params)


def images(board: Blackboard, runs: Sequence[int] | None) -> Query:
    where, params = _used(runs)
    return Query(f"SELECT * FROM images WHERE sha256 IN (SELECT image_sha FROM instances WHERE {where}) ORDER BY sha256", params)


_QUERIES = {"runs": runs_table, "sessions": sessions, "messages": messages, "instances": instances, "images": images}


def query(board: Blackboard, name: str, runs: Sequence[int] | None) -> Query:
    """The readable table ``name``, or else the file's own table or view ``name``, kept to ``runs``.

    A table or view of the file is kept to the runs by its ``run_id`` column, or by its ``session_id``;
    one with neither (``datasets``, ``evaluation_items``) is exported whole.
    """
    if name in _QUERIES:
        return _QUERIES[name](board, runs)
    is_view = name in board.db.view_names()
    columns = [c.name for c in (board.db.view(name) if is_view else board.db.table(name)).columns]
    pks = [] if is_view else board.db.table(name).pks
    order = " ORDER BY " + ", ".join(f"[{p}]" for p in pks) if pks and pks != ["rowid"] else ""
    if runs is not None and "run_id" in columns:
        where, params = _in("run_id", runs)
    elif runs is not None and "session_id" in columns:
        inner, params = _in("run_id", runs)
        where = f"session_id IN (SELECT session_id FROM data WHERE {inner})"
    else:
        where, params = "1", ()
    return Query(f"SELECT * FROM [{name}] WHERE {where}{order}", params)
