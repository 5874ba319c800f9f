"""Review queries: runs with their counts, a run's sessions (filtered, sorted, paged), one session.

Every query is aggregate SQL bounded by one run or one page, so that it stays fast on a blackboard
of a million messages (see ``benchmarks/million.py``). Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pxp_tui.blackboard import notes
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.metrics import counts_of
from pxp_tui.blackboard.records import Run, RunSummary
from pxp_tui.blackboard.schema import CLASSES
from pxp_tui.blackboard.store import Blackboard
from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message
from pxp_tui.protocol import Sender, SessionFlags, Tag, sender_at

#: session filters: the intelligibility classes, then how the session ended
FILTERS: dict[str, str] = {
    **{name: f"s.{name}" for name in CLASSES},
    "ratified": "s.stop_reason = 'ratified'",
    "rejected": "s.stop_reason = 'rejected'",
    "bound": "s.stop_reason = 'bound'",
    "unfinished": "NOT s.finished",
    "skipped": "s.stop_reason IS 'skipped'",
    "flagged": "a.flagged",
    "noted": "COALESCE(a.note, '') != ''",
}

#: the tag sequence of a session as text, one letter per message (see :data:`TAG_LETTERS`)
_TAG_SEQUENCE = """(SELECT group_concat(letter, '') FROM (
    SELECT CASE tag WHEN 'INIT' THEN 'I' WHEN 'RATIFY' THEN 'R' WHEN 'REFUTE' THEN 'F'
                    WHEN 'REVISE' THEN 'V' ELSE 'J' END AS letter
    FROM messages WHERE session_id = s.session_id ORDER BY j))"""

TAG_LETTERS = {"I": Tag.INIT, "R": Tag.RATIFY, "F": Tag.REFUTE, "V": Tag.REVISE, "J": Tag.REJECT}

#: sortable columns -> SQL expression
SORTS: dict[str, str] = {
    "order": "s.ord",
    "session": "s.session_id",
    "instance": "instance",
    "tags": "tags",
    "messages": "s.n_messages",
    "stop": "s.stop_reason",
    "note": "(2 * COALESCE(a.flagged, 0) + (COALESCE(a.note, '') != ''))",
    **{name: f"s.{name}" for name in CLASSES},
    # both agents at once: human and machine, then human only, then machine only, then neither
    "one_way": "(2 * s.one_way_human + s.one_way_machine)",
    "strong": "(2 * s.strong_human + s.strong_machine)",
    "ultra_strong": "(2 * s.ultra_strong_human + s.ultra_strong_machine)",
}

PAGE = 50


@dataclass(frozen=True)
class Query:
    """What a reviewer asks of a run's sessions."""

    kind: str | None = None  # a key of FILTERS
    text: str = ""  # in any prediction or explanation of the session, case-insensitive
    sort: str = "order"  # a key of SORTS
    descending: bool = False
    offset: int = 0
    limit: int = PAGE

    def check(self) -> None:
        if self.kind is not None and self.kind not in FILTERS:
            raise BlackboardError(f"unknown filter {self.kind!r} (one of {', '.join(FILTERS)})")
        if self.sort not in SORTS:
            raise BlackboardError(f"unknown sort column {self.sort!r} (one of {', '.join(SORTS)})")
        if self.offset < 0 or self.limit < 1:
            raise BlackboardError("a page needs offset >= 0 and limit >= 1")


@dataclass(frozen=True)
class SessionRow:
    """One line of a run's session list."""

    session_id: int
    order: int
    instance: str
    tags: tuple[tuple[Sender, Tag], ...]
    flags: SessionFlags
    n_messages: int
    stop_reason: str | None  # None: unfinished; "skipped": the expert skipped it (measured nowhere)
    flagged: bool = False  # flagged for later (see pxp_tui.blackboard.notes)
    note: str = ""


@dataclass(frozen=True)
class Page:
    rows: list[SessionRow]
    total: int  # sessions matching the query
    offset: int
    limit: int


@dataclass(frozen=True)
class Replay:
    """One session as recorded: its run, instance (image included) and messages."""

    run: Run
    session: dict[str, Any]
    instance: Instance
    messages: list[Message]
    annotation: notes.Annotation | None = None  # its flag and note


_COUNTS = ", ".join(f"v.{name}" for name in ("sessions", *CLASSES))
_RUNS = f"""SELECT r.*, json_array_length(r.plan) AS planned,
              (SELECT COUNT(*) FROM data d WHERE d.run_id = r.id) AS started, {_COUNTS}
            FROM runs r JOIN run_intelligibility v ON v.run_id = r.id"""


def _summary(row: dict[str, Any]) -> RunSummary:
    return RunSummary(Run.from_row(row), counts_of(row), planned=row["planned"], started=row["started"])


def runs(board: Blackboard) -> list[RunSummary]:
    """Every run with its configuration, sessions planned/started/finished and class counts.

    A run whose status says ``running`` but whose process is gone (killed) shows ``interrupted``.
    """
    return [_summary(row) for row in board.shown_status(list(board.db.query(_RUNS + " ORDER BY r.id")))]


def runs_row(board: Blackboard, run_id: int) -> RunSummary:
    """The :func:`runs` line of one run."""
    rows = list(board.db.query(_RUNS + " WHERE r.id = ?", [run_id]))
    if not rows:
        raise board.no_run(run_id)
    return _summary(board.shown_status(rows)[0])


def _where(run_id: int, query: Query) -> tuple[str, list[Any]]:
    clauses: list[str] = ["s.run_id = ?"]
    params: list[Any] = [run_id]
    if query.kind:
        clauses.append(FILTERS[query.kind])
    if query.text.strip():
        pattern = "%" + query.text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        clauses.append(
            "EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.session_id"
            " AND (m.prediction LIKE ? ESCAPE '\\' OR m.explanation LIKE ? ESCAPE '\\'))"
        )
        params += [pattern, pattern]
    return " AND ".join(clauses), params


def sessions(board: Blackboard, run_id: int, query: Query = Query()) -> Page:
    """One page of run ``run_id``'s sessions matching ``query``, sorted, then in session order."""
    query.check()
    board.check_runs([run_id])  # a missing run is an error, not an empty list (without parsing its plan)
    where, params = _where(run_id, query)
    joined = notes.join_sql(board)
    total = board.db.execute(f"SELECT COUNT(*) FROM session_intelligibility s {joined} WHERE {where}", params).fetchone()[0]
    direction = "DESC" if query.descending else "ASC"
    sql = f"""SELECT s.*, COALESCE(json_extract(i.meta, '$.name'), i.key) AS instance, {_TAG_SEQUENCE} AS tags,
                a.flagged AS flagged, a.note AS note
              FROM session_intelligibility s JOIN instances i ON i.id = s.instance_id {joined}
              WHERE {where} ORDER BY {SORTS[query.sort]} {direction}, s.ord {direction}
              LIMIT ? OFFSET ?"""
    rows = [_row(r) for r in board.db.query(sql, [*params, query.limit, query.offset])]
    return Page(rows, total, query.offset, query.limit)


def _row(r: dict[str, Any]) -> SessionRow:
    letters = r["tags"] or ""
    tags = tuple((sender_at(j), TAG_LETTERS[c]) for j, c in enumerate(letters, start=1))
    return SessionRow(
        session_id=r["session_id"],
        order=r["ord"],
        instance=str(r["instance"]),
        tags=tags,
        flags=SessionFlags(**{c: bool(r[c]) for c in CLASSES}),
        n_messages=r["n_messages"] or 0,
        stop_reason=r["stop_reason"],
        flagged=bool(r["flagged"]),
        note=r["note"] or "",
    )


def replay(board: Blackboard, session_id: int) -> Replay:
    """Session ``session_id`` with everything needed to show it again, read from the file alone."""
    found = list(board.db.query("SELECT * FROM data WHERE session_id = ?", [session_id]))
    if not found:
        raise BlackboardError(f"no session {session_id} in {board.path or 'the blackboard'}")
    session = found[0]
    run = board.run(session["run_id"])
    (instance,) = board.instances([session["instance_id"]])
    return Replay(run, session, instance, board.session_messages(session_id), notes.get(board, session_id))
