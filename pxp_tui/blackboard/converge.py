"""A run held by both an input of ``pxp merge`` and its target: which copy is ahead, or whether they diverged.

The two copies of one run (one ``uid``) are compared by what never changes once written: its sessions by
order (the instance, by dataset key, and the start time), its messages and context entries by ``(session,
j)``, and its measurements (``evaluations``) in the order they were taken. A copy taken earlier from the
same original holds a part of what the later one holds, and nothing else:

- the input holds rows the target lacks: the input is **ahead** (merge brings the target up to it);
- the target holds rows the input lacks: the input is **behind** (merge leaves the target's);
- neither: the **same** rows, and the state that changes in place (the run's status, its counts, a
  session's end or final distribution) decides; the copy updated later is ahead;
- a row both hold with different content, or rows each lacks: the run was driven in two places; the copies
  **diverged** and no merge can join them (:class:`DivergedError`).

A session's pairing (input session id -> target session id) is left in ``temp.merge_pairs`` and returned.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from pxp_tui.blackboard import firsts
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.records import MERGED_FROM
from pxp_tui.blackboard.schema import shared_columns, table_columns

AHEAD, BEHIND, SAME = "ahead", "behind", "same"

#: columns of ``runs`` that one run never changes
IDENTITY = ("task", "human_kind", "n", "k", "created_at")
#: columns of ``runs`` not compared as state: ids, and what merge maps (dataset name, plan, options)
_NOT_STATE = {"id", "uid", "dataset", "plan", "options"}
#: columns of ``data`` that a session never changes once started (besides its ids)
_SESSION_FIXED = {"session_id", "run_id", "instance_id", "ord", "started_at", *firsts.COLUMNS}


class DivergedError(BlackboardError):
    """Two copies of one run differ where both have a row: it was driven in two places."""


@dataclass
class Comparison:
    verdict: str  # AHEAD, BEHIND or SAME (the input's copy against the target's)
    pairs: dict[int, int] = field(default_factory=dict)  # input session id -> target session id (same order)
    new_sessions: list[int] = field(default_factory=list)  # the input's sessions the target lacks
    evaluations: int = 0  # measurements the target holds already (a prefix of the input's)


def state_options(options: Any) -> dict[str, Any]:
    """A run's ``options`` without what merge adds (compared as state)."""
    parsed = json.loads(options) if isinstance(options, str) else dict(options or {})
    parsed.pop(MERGED_FROM, None)
    return parsed


def _sessions(db: sqlite_utils.Database, schema: str, run_id: int) -> dict[int, tuple[int, str, str]]:
    """ord -> (session id, instance key, started_at)."""
    sql = f"""SELECT d.ord, d.session_id, i.key, d.started_at FROM {schema}.data d
              JOIN {schema}.instances i ON i.id = d.instance_id WHERE d.run_id = ?"""
    return {ord_: (sid, key, started) for ord_, sid, key, started in db.execute(sql, [run_id])}


def _same(columns: list[str], left: str = "s", right: str = "t") -> str:
    return " AND ".join(f"{left}.[{c}] IS {right}.[{c}]" for c in columns) or "1"


class _Diff:
    """What each copy holds that the other lacks, and the first row both hold differently."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.ahead = False
        self.behind = False

    def differ(self, what: str) -> DivergedError:
        return DivergedError(f"{self.label}: {what}; the run was driven in two places, so nothing is merged")

    def rows(self, db: sqlite_utils.Database, src: str, table: str) -> None:
        """``table`` (messages, context): rows keyed by (session, j) in the paired sessions."""
        if not table_columns(db, src, table):
            return
        columns = [c for c in shared_columns(db, src, table) if c not in ("session_id", "j")]
        clash = db.execute(
            f"""SELECT p.new, s.j FROM {src}.{table} s JOIN temp.merge_pairs p ON p.old = s.session_id
                JOIN main.{table} t ON t.session_id = p.new AND t.j = s.j WHERE NOT ({_same(columns)}) LIMIT 1"""
        ).fetchone()
        if clash is not None:
            session = db.execute("SELECT ord FROM main.data WHERE session_id = ?", [clash[0]]).fetchone()[0]
            noun = "message" if table == "messages" else "context entry"
            raise self.differ(f"session {session + 1}'s {noun} {clash[1]} is not the same in both")
        missing = "SELECT 1 FROM {other}.{table} x WHERE x.session_id = p.{other_id} AND x.j = s.j"
        self.ahead |= _exists(
            db,
            f"""SELECT 1 FROM {src}.{table} s JOIN temp.merge_pairs p ON p.old = s.session_id
                WHERE NOT EXISTS ({missing.format(other="main", table=table, other_id="new")})""",
        )
        self.behind |= _exists(
            db,
            f"""SELECT 1 FROM main.{table} s JOIN temp.merge_pairs p ON p.new = s.session_id
                WHERE NOT EXISTS ({missing.format(other=src, table=table, other_id="old")})""",
        )


def _exists(db: sqlite_utils.Database, sql: str) -> bool:
    return bool(db.execute(f"SELECT EXISTS ({sql})").fetchone()[0])


def _evaluations(db: sqlite_utils.Database, schema: str, src: str, run_id: int, ords: Mapping[int, int]) -> list[tuple]:
    """The run's measurements in the order taken, each with its items (by instance key): comparable across files."""
    if not table_columns(db, src, "evaluations"):
        return []
    columns = [c for c in shared_columns(db, src, "evaluations") if c not in ("id", "run_id", "session_id")]
    items = [c for c in shared_columns(db, src, "evaluation_items") if c not in ("evaluation_id", "instance_id")]
    found = []
    sql = f"SELECT id, session_id, {', '.join(columns)} FROM {schema}.evaluations WHERE run_id = ? ORDER BY id"
    for eid, session, *values in db.execute(sql, [run_id]).fetchall():
        rows = db.execute(
            f"""SELECT i.key, {", ".join("t." + c for c in items)} FROM {schema}.evaluation_items t
                JOIN {schema}.instances i ON i.id = t.instance_id WHERE t.evaluation_id = ? ORDER BY i.key""",
            [eid],
        ).fetchall()
        found.append((ords.get(session), *values, tuple(rows)))
    return found


def compare(db: sqlite_utils.Database, src: str, theirs: Mapping[str, Any], ours: Mapping[str, Any], label: str) -> Comparison:
    """The input's copy of a run (``theirs``, a row of ``src``'s ``runs``) against the target's (``ours``);
    :class:`DivergedError` if they diverged. ``label`` names the two in messages."""
    diff = _Diff(label)
    for column in IDENTITY:
        if theirs.get(column) != ours.get(column):
            raise diff.differ(f"they differ in {column} ({theirs.get(column)!r} and {ours.get(column)!r})")
    mine, other = _sessions(db, src, theirs["id"]), _sessions(db, "main", ours["id"])
    result = Comparison(SAME)
    for order, (sid, _key, _started) in sorted(mine.items()):
        if order in other:
            result.pairs[sid] = other[order][0]
        else:
            result.new_sessions.append(sid)
    diff.ahead = bool(result.new_sessions)
    diff.behind = any(order not in mine for order in other)
    db.execute("DELETE FROM temp.merge_pairs")
    db.conn.executemany("INSERT INTO temp.merge_pairs (old, new) VALUES (?, ?)", list(result.pairs.items()))
    for table in ("messages", "context"):
        diff.rows(db, src, table)
    for order, (_sid, *started) in sorted(mine.items()):  # after the messages: a message that differs says more
        if order in other and list(other[order][1:]) != started:
            raise diff.differ(f"session {order + 1} is not the same session in both (instance or start time)")
    theirs_ev = _evaluations(db, src, src, theirs["id"], {s: o for o, (s, _, _) in mine.items()})
    ours_ev = _evaluations(db, "main", src, ours["id"], {s: o for o, (s, _, _) in other.items()})
    common = min(len(theirs_ev), len(ours_ev))
    if theirs_ev[:common] != ours_ev[:common]:
        raise diff.differ(f"machine measurement {next(i for i in range(common) if theirs_ev[i] != ours_ev[i]) + 1} differs")
    result.evaluations = len(ours_ev)
    diff.ahead |= len(theirs_ev) > common
    diff.behind |= len(ours_ev) > common
    if diff.ahead and diff.behind:
        raise diff.differ("each holds messages or sessions the other lacks")
    if diff.ahead or diff.behind:
        result.verdict = AHEAD if diff.ahead else BEHIND
    elif not _same_state(db, src, theirs, ours):
        result.verdict = AHEAD if (theirs.get("updated_at") or "") >= (ours.get("updated_at") or "") else BEHIND
    return result


def _same_state(db: sqlite_utils.Database, src: str, theirs: Mapping[str, Any], ours: Mapping[str, Any]) -> bool:
    """Whether what changes in place (the run's columns, its sessions' ends and finals) is the same in both."""
    columns = [c for c in theirs if c in ours and c not in _NOT_STATE]
    if any(theirs[c] != ours[c] for c in columns) or state_options(theirs["options"]) != state_options(ours["options"]):
        return False
    mutable = [c for c in shared_columns(db, src, "data") if c not in _SESSION_FIXED]
    return not _exists(
        db,
        f"""SELECT 1 FROM {src}.data s JOIN temp.merge_pairs p ON p.old = s.session_id
            JOIN main.data t ON t.session_id = p.new WHERE NOT ({_same(mutable)})""",
    )
