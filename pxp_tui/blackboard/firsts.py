"""Where each agent first sent each kind of tag, kept in ``data`` by triggers.

Computing every session's flags from ``messages`` reads every message: about a second on a
blackboard of one million messages, and several for the curves. Instead each row of ``data``
carries, for each agent, the message number ``j`` at which it first sent a non-INIT tag
(``tag``), a RATIFY or REVISE (``good``), a REFUTE or REJECT (``bad``), a REVISE and a REJECT
(NULL: never). Triggers on ``messages`` keep them exact whoever writes (the engine, ``pxp merge``,
a bulk load). From them (DESIGN.md section 2), for an agent under message bound ``j*``:

- one-way: its first ``good`` is at or before ``j*`` and its first ``reject`` is not;
- strong: its first ``tag`` is at or before ``j*`` and its first ``bad`` is not;
- ultra-strong: strong, and its first ``revise`` is at or before ``j*``;

and without a bound, "at or before ``j*``" is "ever". The views and the curves are aggregate SQL
over ``data`` alone.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

AGENTS = ("machine", "human")

#: kind -> SQL condition on a message row (``{m}`` is the row's alias)
KINDS = {
    "tag": "{m}.tag <> 'INIT'",
    "good": "{m}.tag IN ('RATIFY', 'REVISE')",
    "bad": "{m}.tag IN ('REFUTE', 'REJECT')",
    "revise": "{m}.tag = 'REVISE'",
    "reject": "{m}.tag = 'REJECT'",
}

#: the columns added to ``data``: ``<agent>_first_<kind>``
COLUMNS = tuple(f"{agent}_first_{kind}" for agent in AGENTS for kind in KINDS)


def _conditions(alias: str) -> dict[str, str]:
    return {
        f"{agent}_first_{kind}": f"{alias}.sender = '{agent}' AND {cond.format(m=alias)}"
        for agent in AGENTS
        for kind, cond in KINDS.items()
    }


def _insert_trigger() -> str:
    sets = ",\n    ".join(
        f"{col} = CASE WHEN {cond} THEN MIN(COALESCE({col}, NEW.j), NEW.j) ELSE {col} END"
        for col, cond in _conditions("NEW").items()
    )
    return (
        "CREATE TRIGGER IF NOT EXISTS messages_firsts_insert AFTER INSERT ON messages BEGIN\n"
        f"  UPDATE data SET\n    {sets}\n  WHERE session_id = NEW.session_id;\nEND"
    )


def _recompute(where: str) -> str:
    """``UPDATE data SET (firsts) = (from messages)`` for the rows matching ``where``."""
    mins = ", ".join(f"MIN(CASE WHEN {cond} THEN m.j END)" for cond in _conditions("m").values())
    return (
        f"UPDATE data SET ({', '.join(COLUMNS)}) = "
        f"(SELECT {mins} FROM messages m WHERE m.session_id = data.session_id) WHERE {where}"
    )


TRIGGERS = (
    _insert_trigger(),
    "CREATE TRIGGER IF NOT EXISTS messages_firsts_delete AFTER DELETE ON messages BEGIN\n  "
    + _recompute("session_id = OLD.session_id")
    + ";\nEND",
)


def class_conditions(has: Callable[[str, str], str]) -> dict[str, str]:
    """The seven intelligibility classes as SQL conditions, from ``has(agent, kind)``: the SQL
    condition that ``agent`` sent a tag of ``kind`` (a key of :data:`KINDS`)."""

    def one_way(a: str) -> str:
        return f"({has(a, 'good')} AND NOT {has(a, 'reject')})"

    def strong(a: str) -> str:
        return f"({has(a, 'tag')} AND NOT {has(a, 'bad')})"

    return {
        "one_way_human": one_way("human"),
        "one_way_machine": one_way("machine"),
        "two_way": f"({one_way('machine')} AND {one_way('human')})",
        "strong_human": strong("human"),
        "strong_machine": strong("machine"),
        "ultra_strong_human": f"({strong('human')} AND {has('human', 'revise')})",
        "ultra_strong_machine": f"({strong('machine')} AND {has('machine', 'revise')})",
    }


def flag_columns() -> str:
    """SQL select-list of the seven flags of a ``data`` row (no bound: "ever sent")."""
    conditions = class_conditions(lambda agent, kind: f"({agent}_first_{kind} IS NOT NULL)")
    return ",\n  ".join(f"{sql} AS {name}" for name, sql in conditions.items())


def create_triggers(db: sqlite_utils.Database) -> None:
    for sql in TRIGGERS:
        db.execute(sql)


def add_to_v1(db: sqlite_utils.Database) -> None:
    """Migration 1 -> 2: add the columns to ``data``, fill them from ``messages``, add the triggers."""
    for column in COLUMNS:
        db.execute(f"ALTER TABLE data ADD COLUMN {column} INTEGER")
    db.execute(_recompute("1"))
    create_triggers(db)
