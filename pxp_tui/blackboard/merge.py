"""Merge blackboards from several experts or machines into one, without id clashes.

Runs are identified by their ``uid``: a run already in the target is skipped, so merging the same
file twice adds nothing. Copied runs get new ids, their sessions new session ids (an offset past the
target's largest), and their instances the target's ids for the same dataset and key. Who did what
stays as recorded (human, models, timestamps, every message); the run's ``options`` gain
``merged_from`` (the file and the run's id there). A dataset present in both files with different
instances is copied under a new name, ``NAME@FILE``. Images are shared by their hash.

The inputs are attached read-only in spirit (only read); each group of inputs is merged in one
transaction, and every input is checked before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pxp_tui.blackboard import evaluations, firsts, notes, schema
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.schema import shared_columns, table_columns
from pxp_tui.blackboard.store import Blackboard, insert_id

#: inputs attached at once (SQLite attaches at most 10 databases by default)
BATCH = 8
_INSTANCE_FIELDS = ("key", "split", "input", "image_sha", "reference_prediction", "reference_explanation", "meta")


@dataclass
class Merged:
    """What one input brought."""

    source: Path
    runs: list[tuple[int, int]] = field(default_factory=list)  # (id in source, id in target)
    skipped: list[int] = field(default_factory=list)  # runs of the source already in the target
    renamed: dict[str, str] = field(default_factory=dict)  # dataset name in source -> in target
    sessions: int = 0
    messages: int = 0
    not_copied: list[str] = field(default_factory=list)  # tables the target's schema lacks


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
    """Copy every run of ``sources`` (with its sessions, messages, context, instances) into ``target``."""
    check_sources(sources, target.path)
    results = []
    for start in range(0, len(sources), BATCH):
        batch = list(sources[start : start + BATCH])
        aliases = [f"src{i}" for i in range(len(batch))]
        for alias, path in zip(aliases, batch, strict=True):
            target.db.execute(f"ATTACH DATABASE ? AS {alias}", [str(path)])
        try:
            with target.db.atomic():
                results += [_merge_one(target, alias, path) for alias, path in zip(aliases, batch, strict=True)]
        finally:
            for alias in aliases:
                target.db.execute(f"DETACH DATABASE {alias}")
    return results


def _datasets(target: Blackboard, src: str, result: Merged) -> None:
    db = target.db
    for (name,) in db.execute(f"SELECT name FROM {src}.datasets ORDER BY name").fetchall():
        fields = ", ".join(_INSTANCE_FIELDS)
        theirs = db.execute(f"SELECT {fields} FROM {src}.instances WHERE dataset = ? ORDER BY key", [name]).fetchall()
        new = name
        if target.has_dataset(name):
            ours = db.execute(f"SELECT {fields} FROM main.instances WHERE dataset = ? ORDER BY key", [name]).fetchall()
            if ours == theirs:
                result.renamed[name] = name
                continue
            new, suffix = f"{name}@{result.source.stem}", 2
            while target.has_dataset(new):
                new, suffix = f"{name}@{result.source.stem}~{suffix}", suffix + 1
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


def _merge_one(target: Blackboard, src: str, path: Path) -> Merged:
    db = target.db
    result = Merged(path)
    db.execute(f"INSERT OR IGNORE INTO main.images SELECT * FROM {src}.images")
    _datasets(target, src, result)
    db.execute("CREATE TEMP TABLE IF NOT EXISTS merge_map (kind TEXT, old INTEGER, new INTEGER, PRIMARY KEY (kind, old))")
    db.execute("DELETE FROM temp.merge_map")
    for old, new in result.renamed.items():
        db.execute(
            f"""INSERT INTO temp.merge_map SELECT 'instance', s.id, o.id FROM {src}.instances s
                       JOIN main.instances o ON o.dataset = ? AND o.key = s.key WHERE s.dataset = ?""",
            [new, old],
        )
    ours = {row[0] for row in db.execute("SELECT uid FROM main.runs")}
    run_columns = [c for c in shared_columns(db, src, "runs") if c != "id"]
    derived = [(c, sql) for (table, c), sql in schema.DERIVED.items() if table == "runs" and c not in run_columns]
    extra = "".join(f", {sql} AS {c}" for c, sql in derived)  # columns an older file lacks, as its migration fills them
    run_columns += [c for c, _ in derived]
    for run in db.query(f"SELECT *{extra} FROM {src}.runs ORDER BY id"):
        if run["uid"] in ours:
            result.skipped.append(run["id"])
            continue
        row = {c: run[c] for c in run_columns}
        row["dataset"] = result.renamed.get(run["dataset"], run["dataset"])
        options = json.loads(run["options"] or "{}")
        options["merged_from"] = {"file": path.name, "run_id": run["id"]}
        row["options"] = json.dumps(options, sort_keys=True)
        new_id = insert_id(db.table("runs"), row)
        db.execute("INSERT INTO temp.merge_map VALUES ('run', ?, ?)", [run["id"], new_id])
        result.runs.append((run["id"], new_id))
    offset = db.execute("SELECT COALESCE(MAX(session_id), 0) FROM main.data").fetchone()[0]
    copied = "JOIN temp.merge_map r ON r.kind = 'run' AND r.old = d.run_id"
    core = [c for c in schema.TABLES["data"]["columns"] if c not in ("session_id", "run_id", "instance_id")]
    # the firsts are not copied: the triggers recompute them as the messages arrive
    theirs = set(table_columns(db, src, "data"))
    keep = [c for c in core if c in theirs and c not in firsts.COLUMNS]
    cols = ", ".join(keep)
    result.sessions = db.execute(
        f"""INSERT INTO main.data (session_id, run_id, instance_id, {cols})
            SELECT d.session_id + ?, r.new, i.new, {", ".join("d." + c for c in keep)} FROM {src}.data d {copied}
            JOIN temp.merge_map i ON i.kind = 'instance' AND i.old = d.instance_id""",
        [offset],
    ).rowcount
    for table in ("messages", "context"):
        shared = [c for c in shared_columns(db, src, table) if c != "session_id"]
        count = db.execute(
            f"""INSERT INTO main.{table} (session_id, {", ".join(shared)})
                SELECT t.session_id + ?, {", ".join("t." + c for c in shared)} FROM {src}.{table} t
                JOIN {src}.data d ON d.session_id = t.session_id {copied}""",
            [offset],
        ).rowcount
        if table == "messages":
            result.messages = count
    evaluations.copy_merged(db, src, offset)
    notes.copy_merged(db, src, offset)
    _other_tables(target, src, offset, result)
    return result


def _other_tables(target: Blackboard, src: str, offset: int, result: Merged) -> None:
    """Tables beyond the core's (evaluations, ...) that belong to runs: copied with ids remapped."""
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
        values = [{"run_id": "r.new", "session_id": "t.session_id + ?"}.get(c, f"t.{c}") for c in shared]
        params = [offset] if "session_id" in shared else []
        db.execute(
            f"""INSERT INTO main.[{table}] ({", ".join(shared)}) SELECT {", ".join(values)} FROM {src}.[{table}] t
                JOIN temp.merge_map r ON r.kind = 'run' AND r.old = t.run_id""",
            params,
        )
