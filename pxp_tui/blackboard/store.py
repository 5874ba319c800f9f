"""Opening a blackboard file, and writing to it (runs, datasets, sessions, messages)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlite_utils

from pxp_tui.blackboard import access, dataset_import, finals, reference_keys, schema, transactions, writers
from pxp_tui.blackboard.errors import BlackboardError
from pxp_tui.blackboard.records import Run, stored
from pxp_tui.blackboard.transactions import Writer, WriterDatabase, is_busy, retrying
from pxp_tui.common.files import make_folder
from pxp_tui.common.instance import Instance
from pxp_tui.common.redaction import redact
from pxp_tui.config import RunConfig
from pxp_tui.engine import Message, RunProgress, RunStatus, SessionRecord
from pxp_tui.protocol import Sender, StopReason, Tag
from pxp_tui.protocol.evince import WEIGHTED
from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import ImportProgress

#: SQLite's result code for a file that is not a database
_SQLITE_NOTADB = 26


def now() -> str:
    """A UTC timestamp with microseconds, as stored in every ``*_at`` column."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def insert_id(table: sqlite_utils.db.Table, row: Mapping[str, Any]) -> int:
    """Insert ``row`` into ``table`` (in the caller's transaction); the integer key SQLite gave it."""
    key = table.insert(dict(row)).last_pk
    if not isinstance(key, int):  # pragma: no cover - every table inserted into this way has an integer key
        raise BlackboardError(f"{table.name}: no integer key for the new row")
    return key


def _check_header(conn: sqlite3.Connection, where: Path) -> None:
    """A file that is not SQLite is refused, its header read by SQLite (see :meth:`Blackboard.open`)."""
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
        if code == _SQLITE_NOTADB or (code is None and "not a database" in str(exc)):
            raise BlackboardError(f"{where} is not a SQLite file, so not a pxp blackboard") from None
        raise


class Blackboard:
    """A pxp blackboard: one SQLite file through sqlite-utils, WAL, one transaction per message.

    A writer's ``db`` is a :class:`~pxp_tui.blackboard.transactions.WriterDatabase`: every write transaction
    ``BEGIN IMMEDIATE``, under the one :class:`~pxp_tui.blackboard.transactions.Writer` of the file in this process.
    """

    def __init__(self, db: sqlite_utils.Database, path: Path | None) -> None:
        self.db = db
        self.path = path
        #: the schema the file is at: SCHEMA_VERSION, or older when it was opened read-only
        self.schema_version = schema.SCHEMA_VERSION
        self._attached = False
        self._writer = db.writer if isinstance(db, WriterDatabase) else None

    @property
    def writer(self) -> Writer | None:
        """The file's writer in this process (None for a read-only blackboard)."""
        return self._writer

    # -- opening ----------------------------------------------------------------------------------
    @classmethod
    def open(cls, location: str | Path, *, create: bool = True, readonly: bool = False) -> Blackboard:
        """Open (and, with ``create``, make) the blackboard at ``location``.

        A missing file without ``create``, a file that is not SQLite, a SQLite database of another
        application, or one written by a newer pxp-tui raise :class:`BlackboardError`.

        Only SQLite ever opens the file (nor its -wal and -shm): on POSIX, closing any descriptor of a
        file drops every lock the process holds on it (fcntl(2)), whichever descriptor took them. A
        plain open and close here (to read the header, say) while a connection of this process is
        open would silently release that connection's locks; a reader in another process would then
        think itself the last, checkpoint and delete the WAL this process goes on committing to, and
        those commits would be lost. Several SQLite connections to one file in one process are safe:
        SQLite keeps their locks per file, not per connection, and defers closing a descriptor while
        any of them holds a lock. So the app's writer and its read-only readers may coexist, and the
        header is checked through SQLite. The one descriptor pxp opens itself, for the run locks
        (:mod:`pxp_tui.blackboard.writers`), is closed only when the last blackboard of this process on the file is.
        """
        where = Path(location)
        if where.is_dir():
            raise BlackboardError(f"{where} is a directory, not a blackboard file")
        if not where.exists() and not create:
            raise BlackboardError(f"no blackboard at {where}")
        refused = access.problem(where, write=not readonly)  # unreadable, or read-only for a writer: one line
        if refused:
            raise BlackboardError(refused)
        if not where.exists():
            make_folder(where.parent)  # never writable by everyone: SQLite makes the -wal and -shm there
        conn, board = None, None
        try:
            if readonly:
                conn = access.connect_readonly(where)
            else:
                # a URI, so that pxp merge can attach its inputs read-only (mode=ro): see merge.py
                conn = sqlite3.connect(where.resolve().as_uri(), uri=True, check_same_thread=False)
            _check_header(conn, where)
            db = sqlite_utils.Database(conn) if readonly else WriterDatabase(conn, Writer.of(where))
            board = cls(db, where)
            writers.attach(where)
            board._attached = True
            board._prepare(create=create and not readonly, readonly=readonly)
        except BaseException as exc:
            if board is not None:
                board.close()
            elif conn is not None:
                conn.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise BlackboardError(f"{where}: {access.describe_error(exc)}") from None
            raise
        return board

    @classmethod
    def memory(cls) -> Blackboard:
        """An in-memory blackboard (tests, dry runs)."""
        board = cls(WriterDatabase(sqlite3.connect(":memory:", check_same_thread=False), Writer.of(None)), None)
        board._prepare(create=True)
        return board

    def _prepare(self, *, create: bool, readonly: bool = False) -> None:
        db = self.db
        # a writer's statements wait a short while in SQLite, then are asked again (transactions.begin, retrying)
        busy = transactions.ATTEMPT_MS if isinstance(db, WriterDatabase) else transactions.BUSY_TIMEOUT_MS
        db.execute(f"PRAGMA busy_timeout = {busy}")
        app_id, version = self._check_schema()
        if self.path is not None and create:
            retrying(lambda: db.execute("PRAGMA journal_mode = WAL"))  # the first writer of a new file changes it
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        if app_id == 0 and not create:
            raise BlackboardError(f"{self.path or ':memory:'} is empty: not a pxp blackboard")
        if readonly:  # a reader never writes: it reads an older file as it is
            if version < schema.READABLE_FROM:
                raise BlackboardError(
                    f"{self.path} was written by an older pxp-tui (schema {version}): open it once with a command that "
                    "writes (pxp metrics, say) to upgrade it"
                )
        elif app_id == 0 or version < schema.SCHEMA_VERSION:
            with db.atomic():  # as the writer: another pxp may be making or upgrading the file at this moment
                app_id, version = self._check_schema()
                if app_id == 0:
                    schema.create(db)
                elif version < schema.SCHEMA_VERSION:
                    schema.migrate(db, version)
        self.schema_version = db.execute("PRAGMA user_version").fetchone()[0]

    def _check_schema(self) -> tuple[int, int]:
        """The file's application id and schema version; BlackboardError if it is not a blackboard this pxp reads."""
        db = self.db
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        where = self.path or ":memory:"
        if (app_id == 0 and db.table_names()) or app_id not in (0, schema.APPLICATION_ID):
            raise BlackboardError(f"{where} is a SQLite database of another application, not a pxp blackboard")
        if version > schema.SCHEMA_VERSION:
            raise BlackboardError(
                f"{where} was written by a newer pxp-tui (schema {version}; this one reads up to {schema.SCHEMA_VERSION})"
            )
        return app_id, version

    def close(self) -> None:
        self.db.close()
        if self._attached and self.path is not None:
            self._attached = False
            writers.detach(self.path)  # after the connection: see :meth:`open`

    def __enter__(self) -> Blackboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[sqlite_utils.Database]:
        """Several writes as one transaction (nested: a savepoint): all are kept, or none. It begins as the
        writer (``BEGIN IMMEDIATE``), waiting its turn while another connection writes."""
        return self.db.atomic()

    # -- datasets ---------------------------------------------------------------------------------
    def has_dataset(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM datasets WHERE name = ?", [name]).fetchone() is not None

    def dataset_task(self, name: str) -> str:
        row = self.db.execute("SELECT task FROM datasets WHERE name = ?", [name]).fetchone()
        if row is None:
            raise BlackboardError(f"no dataset {name!r} in the blackboard (see `pxp datasets`)")
        task: str = row[0]
        return task

    def add_dataset(
        self,
        name: str,
        task: str,
        rows: Sequence[DatasetRow],
        *,
        source: str = "",
        description: str = "",
        append: bool = False,
        progress: ImportProgress | None = None,
    ) -> int:
        """Store a dataset and its instances (images included): visible all at once, or not at all.

        With ``append``, add the rows to an existing dataset of the same task; their keys must be new.
        Images left on disk by the reader are read a chunk at a time, and written in short transactions, so that
        runs writing the same file meanwhile wait little (:mod:`pxp_tui.blackboard.dataset_import`).
        ``progress("storing", done, total)`` hears how far it has got. :class:`WriteError` if SQLite refuses a
        write: nothing is stored.
        """
        dataset_import.check_new(self, name, task, rows, append=append)
        dataset_import.store(self, name, task, rows, source=source, description=description, append=append, progress=progress)
        return len(rows)

    def datasets(self) -> list[dict[str, Any]]:
        sql = """SELECT d.name, d.task, d.source, d.created_at, COUNT(i.id) AS instances,
                   SUM(i.split = 'train') AS train, SUM(i.split = 'val') AS val, SUM(i.split = 'test') AS test,
                   SUM(i.image_sha IS NOT NULL) AS images
                 FROM datasets d LEFT JOIN instances i ON i.dataset = d.name GROUP BY d.name ORDER BY d.name"""
        return list(self.db.query(sql))

    def instance_ids(self, dataset: str, split: str | None = None) -> list[int]:
        if split is None:
            rows = self.db.execute("SELECT id FROM instances WHERE dataset = ? ORDER BY id", [dataset])
        else:
            rows = self.db.execute("SELECT id FROM instances WHERE dataset = ? AND split = ? ORDER BY id", [dataset, split])
        return [r[0] for r in rows]

    def instances(self, ids: Iterable[int]) -> list[Instance]:
        """The instances with these ids, in that order, images loaded."""
        ids = list(ids)
        if not ids:
            return []
        found: dict[int, Instance] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"""SELECT i.*, im.data AS image, im.mime AS image_mime FROM instances i
                      LEFT JOIN images im ON im.sha256 = i.image_sha WHERE i.id IN ({marks})"""
            for row in self.db.query(sql, chunk):
                found[row["id"]] = Instance(
                    id=row["id"],
                    dataset=row["dataset"],
                    key=row["key"],
                    split=row["split"] or "train",
                    input=row["input"] or "",
                    image=row["image"],
                    image_mime=row["image_mime"] or "image/png",
                    reference_prediction=row["reference_prediction"] or "",
                    reference_explanation=row["reference_explanation"] or "",
                    meta=json.loads(row["meta"] or "{}"),
                )
        missing = [i for i in ids if i not in found]
        if missing:
            raise BlackboardError(f"instances missing from the blackboard: {missing[:5]}")
        return [found[i] for i in ids]

    # -- runs -------------------------------------------------------------------------------------
    def create_run(self, config: RunConfig, plan: Sequence[int], *, label_order: Sequence[str] | None = None) -> int:
        """Store a new run (status ``created``) made with ``config`` and this plan; its id. Each field of
        ``config`` goes to the column of its name, or to ``options`` (:func:`records.stored`); :meth:`run`
        gives it back as :attr:`Run.config`. ``label_order``: the ordered ground metric's labels, kept with
        the run (:attr:`Run.label_order`; None for the 0/1 metric)."""
        row = {
            **stored(config, schema.TABLES["runs"]["columns"]),
            "label_order": json.dumps(list(label_order), ensure_ascii=False) if label_order else None,
            "uid": uuid.uuid4().hex,
            "status": RunStatus.CREATED.value,
            "plan": json.dumps(list(plan)),
            "created_at": now(),
            "updated_at": now(),
        }
        # the references as the debate evaluation compares them (DRUG: canonical SMILES), for a run with distributions
        keys = reference_keys.missing(self.db, plan) if config.top_k is not None else []
        with self.db.atomic():
            reference_keys.store(self.db, keys)
            return insert_id(self.db.table("runs"), row)

    def run(self, run_id: int) -> Run:
        """Run ``run_id``; a ``running`` status that no living process writes reads ``interrupted``."""
        rows = list(self.db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
        if not rows:
            raise self.no_run(run_id)
        return Run.from_row(writers.shown_status(self.path, rows)[0])

    def runs(self, *, experiment: str | None = None) -> list[Run]:
        """Every run (or those of ``experiment``), in id order, as :meth:`run` reads them."""
        if experiment is None:
            rows = list(self.db.query("SELECT * FROM runs ORDER BY id"))
        else:
            rows = list(self.db.query("SELECT * FROM runs WHERE experiment = ? ORDER BY id", [experiment]))
        return [Run.from_row(row) for row in writers.shown_status(self.path, rows)]

    def run_ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM runs ORDER BY id")]

    def no_run(self, run_id: int) -> BlackboardError:
        """The error for a run this blackboard does not hold."""
        return BlackboardError(f"no run {run_id} in {self.path or 'the blackboard'}")

    def check_runs(self, run_ids: Iterable[int]) -> None:
        """:class:`BlackboardError` naming the first of ``run_ids`` this blackboard does not hold."""
        known = set(self.run_ids())
        for run_id in run_ids:
            if run_id not in known:
                raise self.no_run(run_id)

    def writing(self, run_id: int) -> AbstractContextManager[None]:
        """Hold run ``run_id``'s writer lock while driving it (see :mod:`pxp_tui.blackboard.writers`).

        Readers then show the run ``running`` only while this process lives; BlackboardError if another
        process (or another engine of this one) is driving it.
        """
        return writers.writing(self.path, run_id)

    def shown_status(self, rows: list[dict[str, Any]], key: str = "id") -> list[dict[str, Any]]:
        """``rows`` of runs, a ``running`` status that no living process writes shown as ``interrupted``."""
        return writers.shown_status(self.path, rows, key)

    def set_status(self, run_id: int, status: RunStatus, error: str | None = None) -> None:
        """Set run ``run_id``'s status; ``error`` (why it paused) is stored with any credential redacted.

        Pausing waits for the file no longer than SQLite's busy timeout (it often follows a write that waited its
        limit already): a run left ``running`` by a writer that is gone reads ``interrupted`` anyway.
        """
        status = RunStatus(status)  # its value, as scripts and tests write it, reads as the status
        if status is RunStatus.INTERRUPTED:
            raise ValueError("interrupted is shown, never stored: a run without a living writer")
        stamp = now()
        finished = stamp if status is RunStatus.DONE else None
        with self._writing(limit=0.0 if status is RunStatus.PAUSED else None):
            self.db.execute(
                "UPDATE runs SET status = ?, error = ?, updated_at = ?, finished_at = ? WHERE id = ?",
                [status.value, None if error is None else redact(error), stamp, finished, run_id],
            )

    def _writing(self, *, limit: float | None = None, durable: bool = True) -> AbstractContextManager[Any]:
        """A write transaction waiting at most ``limit`` seconds for another program's lock (see :meth:`transaction`);
        ``durable=False``: its commit is not synced to the disk (``Writer.transaction``)."""
        writer = self._writer
        return self.db.atomic() if writer is None else writer.transaction(self.db.conn, limit, durable=durable)

    def pause_after_failed_write(self, run_id: int, why: str) -> None:
        """Mark run ``run_id`` paused with ``why`` after SQLite refused one of its writes, if the file takes that much.

        On a full disk the journal is first copied into the file and started over, so that the status update
        reuses the journal's space rather than growing it; if even that fails the status stays as the engine
        left it (every committed message is kept either way).
        """
        try:
            self.set_status(run_id, RunStatus.PAUSED, why)
        except sqlite3.Error as exc:
            if is_busy(exc):  # another program holds the file: the run reads interrupted once this process ends
                return
            try:
                self.db.execute("PRAGMA wal_checkpoint(RESTART)")
                self.set_status(run_id, RunStatus.PAUSED, why)
            except sqlite3.Error:
                pass

    def update_run(self, run_id: int, fields: Mapping[str, Any]) -> None:
        """Change columns of run ``run_id`` (e.g. the model it continues with), in one transaction."""
        self.run(run_id)  # BlackboardError if there is none
        with self.db.atomic():
            self.db.table("runs").update(run_id, {**fields, "updated_at": now()})

    # -- the engine's Recorder --------------------------------------------------------------------
    def start_session(self, run_id: int, instance_id: int, order: int) -> int:
        """Open a session; its id. Its commit is not synced to the disk: a session without messages holds nothing to
        lose, and the first message's commit makes it durable with it (see ``Writer.transaction``)."""
        with self._writing(durable=False):  # the writer's lock held: the statement is run as it is
            key = self.db.conn.execute(_START_SESSION, [run_id, instance_id, order, now()]).lastrowid
        if not isinstance(key, int):  # pragma: no cover - an INSERT into a rowid table always gives one
            raise BlackboardError("data: no key for the new session")
        return key

    def record(self, message: Message, context: Mapping[str, Any], stop: StopReason | None) -> None:
        """Commit one message, its context entry and (if it ends the session) the session's end.

        The engine's one write per message, pinned by ``tests/pure/test_engine_cost.py``: three statements in one
        transaction, run as they are under the writer's lock; each statement's text is made once per set of columns
        (the message's own, and those of ``meta`` that ``messages`` has), and none of sqlite-utils' table work (a
        table's existence, its columns, a savepoint per insert) is repeated for every message.
        """
        stamp = now()
        session, j, meta = message.session_id, message.j, message.meta
        sender = message.sender  # the enums' text as ``_value_``: the member itself would go through sqlite3's adapters
        values = [
            session,
            j,
            sender._value_,
            sender.other._value_,
            message.tag._value_,
            message.prediction,
            message.explanation,
            stamp,
        ]
        extra = tuple(key for key in meta if key in _MESSAGE_COLUMNS) if meta else ()
        if extra:
            values.extend(_column_value(meta[key]) for key in extra)
        execute = self.db.conn.execute
        with self._writing():
            execute(_insert_message(extra), values)
            execute(_INSERT_CONTEXT, [session, j, _JSON.encode(context)])
            if stop is None:
                execute("UPDATE data SET n_messages = ? WHERE session_id = ?", [j, session])
            else:
                execute(
                    "UPDATE data SET n_messages = ?, ended_at = ?, stop_reason = ? WHERE session_id = ?",
                    [j, stamp, stop._value_, session],
                )
                finals.store_unjudged(self.db, session)  # weighed by the run wiring next

    def final_arguments(self, session_id: int) -> dict[Sender, Message]:
        """Each agent's latest message with a distribution as stated in session ``session_id`` (what EVINCE's final
        distribution combines, and what a CRIT judge scores); a reply that stated none is passed over."""
        return {Sender(sender): _message(row) for sender, row in finals.latest(self.db, session_id).items()}

    def store_final(
        self,
        session_id: int,
        machine_weight: float,
        human_weight: float,
        method: str,
        reply: str | None = None,
        *,
        aggregation: str = WEIGHTED,
        k: int | None = None,
    ) -> dict[str, float] | None:
        """Replace session ``session_id``'s final distribution by its agents' latest stated distributions combined by
        ``aggregation`` with these weights, with how (``method``: ``crit:<model>``, ``equal``, ``equal (judge
        failed: ...)``) and the judge's reply; None (nothing written) if either agent gave no distribution.
        See :mod:`pxp_tui.blackboard.finals`."""
        with self.db.atomic():
            return finals.store(self.db, session_id, machine_weight, human_weight, method, reply, aggregation, k)

    def latest_crit(self, session_id: int) -> dict[str, Any] | None:
        """The CRIT verdict of session ``session_id``'s latest judged round, or None."""
        return finals.latest_crit(self.db, session_id)

    def unjudged_sessions(self, run_id: int) -> list[tuple[int, int]]:
        """(session id, instance id) of run ``run_id``'s ended sessions whose final distribution still has the
        equal weights stored at the session's end (``equal (not judged)``)."""
        return finals.unjudged(self.db, run_id)

    def keep_context(self, session_id: int, kept: bool) -> None:
        with self.db.atomic():
            self.db.execute("UPDATE data SET context_kept = ? WHERE session_id = ?", [int(kept), session_id])

    def skip_session(self, session_id: int) -> None:
        """End session ``session_id`` as skipped by the expert: no message is written or changed, its context is
        not carried, and the intelligibility measures leave it out (``data.stop_reason = 'skipped'``)."""
        with self.db.atomic():
            self.db.execute(
                "UPDATE data SET ended_at = ?, stop_reason = ?, context_kept = 0 WHERE session_id = ?",
                [now(), StopReason.SKIPPED.value, session_id],
            )

    # -- reading a run back -----------------------------------------------------------------------
    def session_messages(self, session_id: int) -> list[Message]:
        rows = self.db.query("SELECT * FROM messages WHERE session_id = ? ORDER BY j", [session_id])
        return [_message(row) for row in rows]

    def progress(self, run_id: int, instances: Sequence[Instance]) -> RunProgress:
        """Where run ``run_id`` stands, for the engine to resume it."""
        by_id = {inst.id: inst for inst in instances}
        sessions = list(self.db.query("SELECT * FROM data WHERE run_id = ? ORDER BY ord", [run_id]))
        messages: dict[int, list[Message]] = {}
        sql = """SELECT m.* FROM messages m JOIN data d ON d.session_id = m.session_id
                 WHERE d.run_id = ? ORDER BY m.session_id, m.j"""
        for row in self.db.query(sql, [run_id]):
            messages.setdefault(row["session_id"], []).append(_message(row))
        progress = RunProgress()
        for order, row in enumerate(sessions):
            if row["ord"] != order:
                raise BlackboardError(f"run {run_id}: session order has a gap at {order}")
            found = messages.get(row["session_id"], [])
            if row["stop_reason"] is None:
                if order != len(sessions) - 1:
                    raise BlackboardError(f"run {run_id}: session {row['session_id']} is unfinished but not the last")
                progress.open_session = row["session_id"]
                progress.open_messages = found
                continue
            record = SessionRecord(
                row["session_id"], by_id[row["instance_id"]], order, tuple(found), StopReason(row["stop_reason"])
            )
            progress.done.append(record)
            if row["context_kept"] is None or row["context_kept"]:
                progress.kept.add(row["session_id"])
        return progress


_MESSAGE_CORE = {"session_id", "j", "sender", "receiver", "tag", "prediction", "explanation"}
#: the columns of ``messages`` a message's ``meta`` may fill
_MESSAGE_COLUMNS = frozenset(schema.TABLES["messages"]["columns"]) - _MESSAGE_CORE - {"created_at"}
_START_SESSION = "INSERT INTO data (run_id, instance_id, ord, started_at, n_messages) VALUES (?, ?, ?, ?, 0)"
_INSERT_CONTEXT = "INSERT INTO context (session_id, j, context) VALUES (?, ?, ?)"
_JSON = json.JSONEncoder(ensure_ascii=False)
#: the INSERT of a message with these columns of ``meta``, by those columns
_MESSAGE_INSERTS: dict[tuple[str, ...], str] = {}


def _insert_message(extra: tuple[str, ...]) -> str:
    """The INSERT of a message whose ``meta`` fills the columns ``extra`` (after the message's own), made once."""
    sql = _MESSAGE_INSERTS.get(extra)
    if sql is None:
        columns = ("session_id", "j", "sender", "receiver", "tag", "prediction", "explanation", "created_at", *extra)
        names = ", ".join(f'"{name}"' for name in columns)
        sql = _MESSAGE_INSERTS[extra] = f"INSERT INTO messages ({names}) VALUES ({', '.join('?' * len(columns))})"
    return sql


def _column_value(value: Any) -> Any:
    """A ``meta`` value as its column keeps it: a mapping or a list as JSON text (a distribution), others as they are."""
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=repr)
    return value


def _message(row: Mapping[str, Any]) -> Message:
    meta = {k: v for k, v in row.items() if k not in _MESSAGE_CORE and v is not None}
    return Message(
        session_id=row["session_id"],
        j=row["j"],
        sender=Sender(row["sender"]),
        tag=Tag(row["tag"]),
        prediction=row["prediction"] or "",
        explanation=row["explanation"] or "",
        meta=meta,
    )
