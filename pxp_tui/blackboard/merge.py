"""Merge blackboards from several experts or machines into one, without id clashes; merge again to bring it up to date.

Runs are matched by their ``uid``. A run the target lacks is copied: it gets a new id, its sessions new
session ids (past the target's largest), its instances (and its plan) the target's ids for the same dataset
and key. A run the target holds already is compared with it (:mod:`pxp_tui.blackboard.converge`): if the
input's copy is ahead (new sessions, messages, measurements, or a later status), the target's is brought up
to it, so that it holds the same rows; if it is the same or behind, it is left; if the two diverged (the run
was driven in two places), the whole merge is refused and nothing is written. Merging the same file twice
therefore changes nothing the second time, and merging a run again after it went on brings its copy level.

Who did what stays as recorded (human, models, timestamps, every message); the run's ``options`` gain
``merged_from`` (the file, its path and the run's id there; kept as it is when the input's run is itself a
copy, so that it always names the original). A copy of an unfinished run cannot be resumed in the target
(two processes would drive one run): it is continued where it was written, and merged again. A flag or note
on a session is the one written last. A dataset present in both files with different instances is copied
under a new name, ``NAME@FILE``. Images are shared by their hash.

The inputs are attached read-only in spirit (only read); each group of inputs is merged in one transaction
(so each input is read as one snapshot, even while a run in it is being written), and every input is checked
before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pxp_tui.blackboard import access, converge, evaluations, firsts, notes, reference_keys, rounds, schema, writers
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.records import MERGED_FROM
from pxp_tui.blackboard.schema import shared_columns, table_columns
from pxp_tui.blackboard.store import Blackboard, insert_id

#: inputs attached at once (SQLite attaches at most 10 databases by default)
BATCH = 8
_INSTANCE_FIELDS = ("key", "split", "input", "image_sha", "reference_prediction", "reference_explanation", "meta")
_RUNNING = "running"


@dataclass
class Merged:
    """What one input brought."""

    source: Path
    runs: list[tuple[int, int]] = field(default_factory=list)  # copied: (id in source, id in target)
    updated: list[tuple[int, int]] = field(default_factory=list)  # brought up to date: (id in source, id in target)
    current: list[int] = field(default_factory=list)  # runs of the source the target holds as they are, or later
    renamed: dict[str, str] = field(default_factory=dict)  # dataset name in source -> in target
    sessions: int = 0  # sessions added (to copied and updated runs)
    messages: int = 0  # messages added
    not_copied: list[str] = field(default_factory=list)  # tables the target's schema lacks


@dataclass
class _Plan:
    """One run of the input and what the merge does with it."""

    theirs: dict[str, Any]
    ours: dict[str, Any] | None  # the target's copy, if it holds one
    comparison: converge.Comparison | None

    @property
    def writes(self) -> bool:
        return self.ours is None or (self.comparison is not None and self.comparison.verdict == converge.AHEAD)


def check_source(source: Path, target: Path | None) -> None:
    """``source`` must be an existing pxp blackboard that this pxp reads as it is (the current schema, or
    one from :data:`schema.READABLE_FROM`), other than the target. It is never changed.

    Read through SQLite only, never opened as a plain file: see :meth:`Blackboard.open`.
    """
    if target is not None and source.exists() and target.exists() and source.resolve() == target.resolve():
        raise BlackboardError(f"{source} is the output file: merge other files into it")
    with Blackboard.open(source, create=False, readonly=True):  # BlackboardError if it is older than that
        pass


def check_sources(sources: Sequence[Path], target: Path | None) -> None:
    """Every input is a current pxp blackboard, named once, and not the target."""
    if len({p.resolve() for p in sources}) != len(sources):
        raise BlackboardError("an input file is named twice")
    for path in sources:
        check_source(path, target)


def merge(target: Blackboard, sources: Sequence[Path]) -> list[Merged]:
    """Copy every run of ``sources`` (with its sessions, messages, context, instances) into ``target``, or bring
    the target's copy of it up to date; :class:`converge.DivergedError` (nothing written) if two copies diverged."""
    check_sources(sources, target.path)
    results = []
    for start in range(0, len(sources), BATCH):
        batch = list(sources[start : start + BATCH])
        aliases = [f"src{i}" for i in range(len(batch))]
        for alias, path in zip(aliases, batch, strict=True):
            # read-only (a URI: the target's connection takes URIs): the merge's transaction, begun IMMEDIATE, then
            # locks the target only, never an input another pxp may be writing
            target.db.execute(f"ATTACH DATABASE ? AS {alias}", [access.readonly_uri(path)])
        try:
            with target.db.atomic():
                results += [_merge_one(target, alias, path) for alias, path in zip(aliases, batch, strict=True)]
        finally:
            for alias in aliases:
                target.db.execute(f"DETACH DATABASE {alias}")
    return results


def _same_instances(target: Blackboard, src: str, name: str, ours: str) -> bool:
    fields = ", ".join(_INSTANCE_FIELDS)
    sql = "SELECT {fields} FROM {schema}.instances WHERE dataset = ? ORDER BY key"
    theirs = target.db.execute(sql.format(fields=fields, schema=src), [name]).fetchall()
    return theirs == target.db.execute(sql.format(fields=fields, schema="main"), [ours]).fetchall()


def _candidates(name: str, stem: str) -> Iterator[str]:
    """The names a dataset of the input may have in the target: its own, then ``NAME@FILE``, ``NAME@FILE~2``..."""
    yield name
    yield f"{name}@{stem}"
    suffix = 2
    while True:
        yield f"{name}@{stem}~{suffix}"
        suffix += 1


def _datasets(target: Blackboard, src: str, result: Merged) -> None:
    """Each dataset of the input under the name of the target's that holds the same instances (merged before),
    else copied under the first free name."""
    db = target.db
    fields = ", ".join(_INSTANCE_FIELDS)
    for (name,) in db.execute(f"SELECT name FROM {src}.datasets ORDER BY name").fetchall():
        for new in _candidates(name, result.source.stem):
            if not target.has_dataset(new):
                break
            if _same_instances(target, src, name, new):
                result.renamed[name] = new
                break
        if name in result.renamed:
            continue
        db.execute(
            f"INSERT INTO main.datasets SELECT ?, task, source, description, created_at FROM {src}.datasets WHERE name = ?",
            [new, name],
        )
        db.execute(
            f"INSERT INTO main.instances (dataset, {fields}) SELECT ?, {fields} FROM {src}.instances "
            "WHERE dataset = ? ORDER BY id",
            [new, name],
        )
        result.renamed[name] = new


def _plans(target: Blackboard, src: str, path: Path) -> list[_Plan]:
    """What to do with each run of the input; DivergedError (before anything is written) if a copy diverged."""
    db = target.db
    derived = [
        (c, sql) for (table, c), sql in schema.DERIVED.items() if table == "runs" and c not in table_columns(db, src, "runs")
    ]
    extra = "".join(f", {sql} AS {c}" for c, sql in derived)  # columns an older file lacks, as its migration fills them
    ours = {row["uid"]: row for row in db.query("SELECT * FROM main.runs")}
    plans = []
    for run in db.query(f"SELECT *{extra} FROM {src}.runs ORDER BY id"):
        mine = ours.get(run["uid"])
        if mine is None:
            plans.append(_Plan(run, None, None))
            continue
        label = f"run {run['id']} of {path} and run {mine['id']} of {target.path} (uid {run['uid']})"
        comparison = converge.compare(db, src, run, mine, label)
        ahead = comparison.verdict == converge.AHEAD
        if ahead and mine["status"] == _RUNNING and target.path is not None and writers.live(target.path, [mine["id"]]):
            raise BlackboardError(f"{label}: run {mine['id']} is being written in {target.path} now; nothing is merged")
        plan = _Plan(run, mine, comparison)
        for old, new in comparison.pairs.items():
            db.execute("INSERT INTO temp.merge_map VALUES ('session', ?, ?)", [old, new])
        plans.append(plan)
    return plans


def _merge_one(target: Blackboard, src: str, path: Path) -> Merged:
    db = target.db
    result = Merged(path)
    db.execute("CREATE TEMP TABLE IF NOT EXISTS merge_map (kind TEXT, old INTEGER, new INTEGER, PRIMARY KEY (kind, old))")
    db.execute("CREATE TEMP TABLE IF NOT EXISTS merge_pairs (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
    db.execute("DELETE FROM temp.merge_map")
    plans = _plans(target, src, path)  # every check before the first write
    db.execute(f"INSERT OR IGNORE INTO main.images SELECT * FROM {src}.images")
    _datasets(target, src, result)
    offset = db.execute("SELECT COALESCE(MAX(session_id), 0) FROM main.data").fetchone()[0]
    for plan in plans:
        if not plan.writes:
            result.current.append(plan.theirs["id"])
            continue
        dataset, new_id = _write_run(target, src, path, plan, result)
        db.execute("INSERT INTO temp.merge_map VALUES ('run', ?, ?)", [plan.theirs["id"], new_id])
        _sessions(target, src, plan, (new_id, dataset), offset, result)
        done = plan.comparison.evaluations if plan.comparison is not None else 0
        evaluations.copy_merged(db, src, (plan.theirs["id"], new_id), dataset, skip=done)
    result.messages = _rows(db, src, "messages")
    _rows(db, src, "context")
    reference_keys.fill(db)  # the copied runs' references as the debate evaluation compares them
    if db.execute(f"PRAGMA {src}.user_version").fetchone()[0] < 8:
        # an older pxp stored every stop of EVINCE's rule as converged: the stop reason its rule found, as schema 8's
        # migration gives it
        rounds.reclassify(db, "SELECT new FROM temp.merge_map WHERE kind = 'session'")
    notes.copy_merged(db, src)
    _other_tables(target, src, result)
    return result


def _write_run(target: Blackboard, src: str, path: Path, plan: _Plan, result: Merged) -> tuple[str, int]:
    """The run's row copied or brought up to date; (its dataset in the target, its id there)."""
    db, run = target.db, plan.theirs
    dataset = plan.ours["dataset"] if plan.ours is not None else result.renamed.get(run["dataset"], run["dataset"])
    row = {c: run[c] for c in shared_columns(db, src, "runs") if c != "id"}
    row.update({c: run[c] for c in run if c not in row and c in table_columns(db, "main", "runs") and c != "id"})
    row["dataset"] = dataset
    row["plan"] = json.dumps(_plan_ids(db, src, json.loads(run["plan"] or "[]"), dataset))
    options = json.loads(run["options"] or "{}")
    options.setdefault(MERGED_FROM, {"file": path.name, "path": str(path.resolve()), "run_id": run["id"]})
    row["options"] = json.dumps(options, sort_keys=True)
    if plan.ours is None:
        new_id = insert_id(db.table("runs"), row)
        result.runs.append((run["id"], new_id))
        return dataset, new_id
    db.table("runs").update(plan.ours["id"], row)
    result.updated.append((run["id"], plan.ours["id"]))
    return dataset, plan.ours["id"]


def _plan_ids(db: Any, src: str, plan: list[int], dataset: str) -> list[int]:
    """The input's plan (its instance ids) as the target's ids of the same keys in ``dataset``."""
    if not plan:
        return []
    marks = ",".join("?" * len(plan))
    found = dict(
        db.execute(
            f"""SELECT s.id, t.id FROM {src}.instances s JOIN main.instances t ON t.dataset = ? AND t.key = s.key
                WHERE s.id IN ({marks})""",
            [dataset, *plan],
        ).fetchall()
    )
    missing = [i for i in plan if i not in found]
    if missing:
        raise BlackboardError(f"instance {missing[0]} of a run's plan has no counterpart in dataset {dataset!r}")
    return [found[i] for i in plan]


def _sessions(target: Blackboard, src: str, plan: _Plan, run: tuple[int, str], offset: int, result: Merged) -> None:
    """The run's sessions the target lacks, added (session ids moved by ``offset``); those it holds, updated."""
    db = target.db
    new_id, dataset = run
    fresh = (
        plan.comparison.new_sessions
        if plan.comparison is not None
        else [r[0] for r in db.execute(f"SELECT session_id FROM {src}.data WHERE run_id = ?", [plan.theirs["id"]])]
    )
    db.conn.executemany("INSERT INTO temp.merge_map VALUES ('session', ?, ?)", [(old, old + offset) for old in fresh])
    core = [c for c in schema.TABLES["data"]["columns"] if c not in ("session_id", "run_id", "instance_id")]
    # the firsts are not copied: the triggers recompute them as the messages arrive
    theirs = set(table_columns(db, src, "data"))
    keep = [c for c in core if c in theirs and c not in firsts.COLUMNS]
    mapped = "JOIN temp.merge_map s ON s.kind = 'session' AND s.old = d.session_id"
    if fresh:
        added = db.execute(
            f"""INSERT INTO main.data (session_id, run_id, instance_id, {", ".join(keep)})
                SELECT s.new, ?, i.id, {", ".join("d." + c for c in keep)} FROM {src}.data d {mapped}
                JOIN {src}.instances si ON si.id = d.instance_id JOIN main.instances i ON i.dataset = ? AND i.key = si.key
                WHERE d.run_id = ? AND s.new > ?""",
            [new_id, dataset, plan.theirs["id"], offset],
        ).rowcount
        if added != len(fresh):
            raise BlackboardError(f"run {plan.theirs['id']}: a session's instance has no counterpart in dataset {dataset!r}")
        result.sessions += added
    if plan.comparison is not None and plan.comparison.pairs:  # sessions held already: their ends, finals...
        changing = [c for c in keep if c not in ("ord", "started_at")]
        db.execute(
            f"""UPDATE main.data SET ({", ".join(changing)}) = (SELECT {", ".join("d." + c for c in changing)}
                  FROM {src}.data d {mapped} WHERE s.new = main.data.session_id)
                WHERE run_id = ? AND session_id <= ? AND session_id IN (SELECT new FROM temp.merge_map WHERE kind = 'session')""",
            [new_id, offset],
        )


def _rows(db: Any, src: str, table: str) -> int:
    """``table``'s rows (messages, context) of the runs written, that the target lacks; how many."""
    shared = [c for c in shared_columns(db, src, table) if c != "session_id"]
    return int(
        db.execute(
            f"""INSERT INTO main.{table} (session_id, {", ".join(shared)})
                SELECT s.new, {", ".join("t." + c for c in shared)} FROM {src}.{table} t
                JOIN temp.merge_map s ON s.kind = 'session' AND s.old = t.session_id
                JOIN {src}.data d ON d.session_id = t.session_id JOIN temp.merge_map r ON r.kind = 'run' AND r.old = d.run_id
                WHERE NOT EXISTS (SELECT 1 FROM main.{table} x WHERE x.session_id = s.new AND x.j = t.j)
                ORDER BY t.session_id, t.j"""
        ).rowcount
    )


def _other_tables(target: Blackboard, src: str, result: Merged) -> None:
    """Tables beyond the core's that belong to runs: their rows the target lacks, copied with ids remapped."""
    db = target.db
    theirs = [r[0] for r in db.execute(f"SELECT name FROM {src}.sqlite_master WHERE type = 'table'")]
    for table in theirs:
        if table in schema.TABLES or table.startswith("sqlite_"):
            continue
        if "run_id" not in table_columns(db, src, table):
            continue
        if table not in db.table_names():
            result.not_copied.append(table)
            continue
        pks = db.table(table).pks
        shared = [c for c in shared_columns(db, src, table) if not (c in pks and pks == ["id"])]
        values = [{"run_id": "r.new", "session_id": "s.new"}.get(c, f"t.[{c}]") for c in shared]
        session = "LEFT JOIN temp.merge_map s ON s.kind = 'session' AND s.old = t.session_id" if "session_id" in shared else ""
        same = " AND ".join(f"x.[{c}] IS {v}" for c, v in zip(shared, values, strict=True))
        db.execute(
            f"""INSERT INTO main.[{table}] ({", ".join(f"[{c}]" for c in shared)}) SELECT {", ".join(values)}
                FROM {src}.[{table}] t JOIN temp.merge_map r ON r.kind = 'run' AND r.old = t.run_id {session}
                WHERE NOT EXISTS (SELECT 1 FROM main.[{table}] x WHERE {same})"""
        )
