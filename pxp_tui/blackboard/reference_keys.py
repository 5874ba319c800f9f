"""Each instance's reference as the debate evaluation compares it: ``instances.reference_key``.

A debate's distributions are keyed as the task reads them (DRUG: a reactant set as its sorted canonical SMILES
joined by '.'). Where a task's :meth:`~pxp_tui.tasks.base.Task.reference_key` gives the reference's form in those
keys, it is stored beside the reference as written, so that the ``debate_ranks`` view compares the two exactly
(``NC1CCC(O)CC1`` is not ``Nc1ccc(O)cc1``, and ``OC1=CC=C(N)C=C1`` is). NULL: the reference is compared as written,
ASCII case and surrounding spaces aside (RAD's conditions, a diagnosis task's labels).

Kept for the instances of the runs that ask for distributions (``--top-k``: the only ones the evaluation reads):
when such a run is stored, when an older file is migrated, and for the runs ``pxp merge`` copies. Derived from
``reference_prediction`` alone, it is never compared between two files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sqlite_utils

#: the instances a run with distributions plans, without a key, and their task
_MISSING = """SELECT DISTINCT i.id, d.task, i.reference_prediction FROM runs r, json_each(r.plan) p
   JOIN instances i ON i.id = p.value JOIN datasets d ON d.name = i.dataset
   WHERE r.top_k IS NOT NULL AND i.reference_key IS NULL AND i.reference_prediction IS NOT NULL"""


def missing(db: sqlite_utils.Database, instances: Iterable[int] | None = None) -> list[tuple[str, int]]:
    """(key, instance id) of the instances of runs with distributions (or of ``instances``, whichever their run)
    that lack a key and whose task keys its references: computed before the transaction that stores them (a
    DRUG key is RDKit's, in its worker process)."""
    from pxp_tui.tasks import get_task

    if instances is None:
        rows = db.execute(_MISSING).fetchall()
    else:
        ids = sorted(set(instances))
        marks = ",".join("?" * len(ids))
        rows = db.execute(
            f"""SELECT i.id, d.task, i.reference_prediction FROM instances i JOIN datasets d ON d.name = i.dataset
                WHERE i.id IN ({marks}) AND i.reference_key IS NULL AND i.reference_prediction IS NOT NULL""",
            ids,
        ).fetchall()
    keys = []
    for id_, name, reference in rows:
        try:
            task = get_task(name)
        except ValueError:  # a task of a newer pxp: its instances are compared as written
            continue
        key = task.reference_key(reference)
        if key is not None:
            keys.append((key, id_))
    return keys


def store(db: sqlite_utils.Database, keys: Sequence[tuple[str, int]]) -> None:
    """Write the keys :func:`missing` computed (the caller holds the transaction)."""
    db.conn.executemany("UPDATE instances SET reference_key = ? WHERE id = ?", keys)


def fill(db: sqlite_utils.Database) -> int:
    """Every missing key of the instances of runs with distributions, computed and written; how many."""
    keys = missing(db)
    store(db, keys)
    return len(keys)
