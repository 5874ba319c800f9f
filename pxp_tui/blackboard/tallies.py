"""Per-session tag tallies kept in ``data`` by triggers, so that intelligibility is aggregate SQL.

Computing every session's flags from ``messages`` reads every message: about a second on a
blackboard of one million messages. Instead each row of ``data`` carries, for each agent, how many
non-INIT tags it sent, how many were RATIFY or REVISE ("good"), REVISE, and REJECT. Triggers on
``messages`` keep them exact whoever writes (the engine, ``pxp merge``, a bulk load), and the
intelligibility views read them (DESIGN.md section 2):

- one-way for ``a``: ``a_good > 0 AND a_reject = 0``;
- strong for ``a``: ``a_tags > 0 AND a_good = a_tags``;
- ultra-strong for ``a``: strong for ``a`` and ``a_revise > 0``.
"""

from __future__ import annotations

import sqlite_utils

AGENTS = ("machine", "human")

#: tally -> SQL condition on a message row (``{m}`` is the row's alias) counted by it
KINDS = {
    "tags": "{m}.tag <> 'INIT'",
    "good": "{m}.tag IN ('RATIFY', 'REVISE')",
    "revise": "{m}.tag = 'REVISE'",
    "reject": "{m}.tag = 'REJECT'",
}

#: the tally columns added to ``data``
COLUMNS = tuple(f"{agent}_{kind}" for agent in AGENTS for kind in KINDS)


def _terms(alias: str) -> dict[str, str]:
    return {
        f"{agent}_{kind}": f"({alias}.sender = '{agent}' AND {cond.format(m=alias)})"
        for agent in AGENTS
        for kind, cond in KINDS.items()
    }


def _trigger(event: str, alias: str, sign: str) -> str:
    sets = ",\n    ".join(f"{col} = {col} {sign} {term}" for col, term in _terms(alias).items())
    return (
        f"CREATE TRIGGER IF NOT EXISTS messages_tally_{event.lower()} AFTER {event} ON messages BEGIN\n"
        f"  UPDATE data SET\n    {sets}\n  WHERE session_id = {alias}.session_id;\nEND"
    )


TRIGGERS = (_trigger("INSERT", "NEW", "+"), _trigger("DELETE", "OLD", "-"))


def flag_columns(prefix: str = "") -> str:
    """SQL select-list of the seven intelligibility flags from the tallies of ``data`` (alias ``prefix``)."""
    p = prefix

    def one_way(a: str) -> str:
        return f"({p}{a}_good > 0 AND {p}{a}_reject = 0)"

    def strong(a: str) -> str:
        return f"({p}{a}_tags > 0 AND {p}{a}_good = {p}{a}_tags)"

    return ",\n  ".join(
        [
            f"{one_way('machine')} AS one_way_machine",
            f"{one_way('human')} AS one_way_human",
            f"({one_way('machine')} AND {one_way('human')}) AS two_way",
            f"{strong('machine')} AS strong_machine",
            f"{strong('human')} AS strong_human",
            f"({strong('machine')} AND {p}machine_revise > 0) AS ultra_strong_machine",
            f"({strong('human')} AND {p}human_revise > 0) AS ultra_strong_human",
        ]
    )


def create_triggers(db: sqlite_utils.Database) -> None:
    for sql in TRIGGERS:
        db.execute(sql)


def add_to_v1(db: sqlite_utils.Database) -> None:
    """Migration 1 -> 2: add the tallies to ``data``, fill them from ``messages``, add the triggers."""
    for column in COLUMNS:
        db.execute(f"ALTER TABLE data ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
    sums = ", ".join(f"COALESCE(SUM{term}, 0)" for term in _terms("m").values())
    db.execute(
        f"UPDATE data SET ({', '.join(COLUMNS)}) = "
        f"(SELECT {sums} FROM messages m WHERE m.session_id = data.session_id)"
    )
    create_triggers(db)
