"""EVINCE's final output stored with a session (``data.final_distribution``, ``data.final_weights``).

A session that ends with both agents' distributions gets, in the same transaction as its last message, the
latest distribution each stated (a reply that stated none is passed over) combined with equal weights, its method :data:`NOT_JUDGED`. The run wiring then
weighs it by the last round's CRIT scores (``pxp_tui.runs.final``) and replaces it (:func:`store`), or with
the equal weights the run asked for; a run resumed after a crash in between weighs what is left
(:func:`unjudged`). So a final distribution is never silently equal-weighted: ``final_weights`` says how it
was weighed. No model is called here.

The combination is the run's ``--aggregation`` (:func:`pxp_tui.protocol.evince.aggregate`): EnToPPS
(Appendix F) when the agents' top-k label sets differ, the weighted average otherwise; or always the
weighted average. ``final_weights`` is JSON: ``{"machine": w, "human": w, "method": ..., "aggregation":
"entopps" | "weighted"}`` and, when a judge answered at the session's end, its reply under ``"reply"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from pxp_tui.blackboard.information_sql import STATED_MESSAGES
from pxp_tui.protocol import Sender
from pxp_tui.protocol.evince import NOT_JUDGED, WEIGHTED, aggregate

#: each agent's latest message with a distribution as stated, in one session (a reply that stated none is passed
#: over: EnToPPS combines only what the agents stated)
_LATEST = f"""SELECT m.* FROM messages m JOIN {STATED_MESSAGES} s ON s.session_id = m.session_id AND s.j = m.j
   WHERE m.session_id = ?1 AND s.distribution IS NOT NULL AND m.j = (SELECT MAX(x.j) FROM {STATED_MESSAGES} x
     WHERE x.session_id = ?1 AND x.sender = m.sender AND x.distribution IS NOT NULL)"""


@dataclass(frozen=True)
class FinalWeights:
    """How a session's final distribution weighs the two agents, as stored."""

    machine: float
    human: float
    method: str
    reply: str = ""
    aggregation: str = WEIGHTED  # entopps | weighted: how the distributions were combined

    @classmethod
    def read(cls, text: str | None) -> FinalWeights | None:
        """``data.final_weights`` as stored (None: none, or unreadable)."""
        try:
            found = json.loads(text) if text else None
            if not isinstance(found, dict):
                return None
            return cls(
                float(found["machine"]),
                float(found["human"]),
                str(found["method"]),
                str(found.get("reply") or ""),
                str(found.get("aggregation") or WEIGHTED),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def describe(self) -> str:
        """``machine 7 : other 5 (crit:gpt-4o-mini), entopps``."""
        return f"machine {self.machine:.3g} : other {self.human:.3g} ({self.method}), {self.aggregation}"

    def lines(self) -> list[str]:
        """How it was made, in short lines (a narrow pane): the aggregation, the weights, who weighed them."""
        how = "EnToPPS (the top-k sets differ)" if self.aggregation == "entopps" else "weighted average"
        return [
            f"Final distribution · {how}",
            f"weights machine {self.machine:.3g} : other {self.human:.3g}",
            f"by {self.method}",
        ]


def latest(db: sqlite_utils.Database, session_id: int) -> dict[str, dict[str, Any]]:
    """Each sender's latest message with a distribution as stated in session ``session_id``, as rows by sender. (A plain
    cursor: sqlite-utils' ``query`` puts a savepoint around it, at every session's end.)"""
    cursor = db.execute(_LATEST, [session_id])
    names = [column[0] for column in cursor.description]
    return {row["sender"]: row for row in (dict(zip(names, values, strict=True)) for values in cursor.fetchall())}


def store(
    db: sqlite_utils.Database,
    session_id: int,
    machine_weight: float,
    human_weight: float,
    method: str,
    reply: str | None = None,
    aggregation: str = WEIGHTED,
    k: int | None = None,
) -> dict[str, float] | None:
    """Write session ``session_id``'s final distribution, its agents' latest distributions combined by
    ``aggregation`` (top-``k`` label sets for EnToPPS) with these weights, and how (``final_weights``);
    nothing (None) if either agent gave no distribution. The caller holds the transaction."""
    found = latest(db, session_id)
    if Sender.MACHINE.value not in found or Sender.HUMAN.value not in found:
        return None
    machine, human = (json.loads(found[s.value]["distribution"]) for s in (Sender.MACHINE, Sender.HUMAN))
    final, used = aggregate(machine, human, machine_weight, human_weight, k, aggregation)
    weights: dict[str, Any] = {
        Sender.MACHINE.value: machine_weight,
        Sender.HUMAN.value: human_weight,
        "method": method,
        "aggregation": used,
    }
    if reply:
        weights["reply"] = reply
    db.execute(
        "UPDATE data SET final_distribution = ?, final_weights = ? WHERE session_id = ?",
        [json.dumps(final, ensure_ascii=False), json.dumps(weights, ensure_ascii=False), session_id],
    )
    return final


def latest_crit(db: sqlite_utils.Database, session_id: int) -> dict[str, Any] | None:
    """The CRIT verdict of session ``session_id``'s latest judged round (``messages.crit``), or None."""
    for row in db.query(
        "SELECT crit FROM messages WHERE session_id = ? AND crit IS NOT NULL ORDER BY j DESC LIMIT 1", [session_id]
    ):
        try:
            found = json.loads(row["crit"])
        except ValueError:
            return None
        return found if isinstance(found, dict) else None
    return None


def store_unjudged(db: sqlite_utils.Database, session_id: int) -> None:
    """At a session's end: the equal-weight combination by the run's aggregation (its top-k sets for EnToPPS),
    marked :data:`NOT_JUDGED` until the run wiring weighs it."""
    found = db.execute(
        "SELECT r.aggregation, r.top_k FROM runs r JOIN data d ON d.run_id = r.id WHERE d.session_id = ?", [session_id]
    ).fetchone()
    aggregation, k = (found[0] or WEIGHTED, found[1]) if found else (WEIGHTED, None)
    store(db, session_id, 1.0, 1.0, NOT_JUDGED, aggregation=aggregation, k=k)


def unjudged(db: sqlite_utils.Database, run_id: int) -> list[tuple[int, int]]:
    """(session id, instance id) of run ``run_id``'s sessions whose final distribution waits for its weights."""
    sql = """SELECT session_id, instance_id FROM data WHERE run_id = ? AND final_weights IS NOT NULL
             AND json_extract(final_weights, '$.method') = ? ORDER BY ord"""
    return [(r[0], r[1]) for r in db.execute(sql, [run_id, NOT_JUDGED])]


def methods(rows: list[Mapping[str, Any]]) -> dict[str, int]:
    """How many of these sessions (rows with ``final_weights``) were weighed by each method."""
    counts: dict[str, int] = {}
    for row in rows:
        weights = FinalWeights.read(row.get("final_weights"))
        if weights is not None:
            counts[weights.method] = counts.get(weights.method, 0) + 1
    return counts
