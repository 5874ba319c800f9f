"""The blackboard's schema (DESIGN.md section 4), its version, and forward migrations."""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from pxp_tui.blackboard import debate_eval, firsts, reference_keys, rounds
from pxp_tui.protocol.evince import NMI, OLD_TOLERANCE, PLATEAU, WEIGHTED
from pxp_tui.protocol.intelligibility import CLASSES

#: ``PRAGMA application_id`` of a pxp blackboard ("PXPT")
APPLICATION_ID = 0x50585054
#: ``PRAGMA user_version`` of the schema this code writes
SCHEMA_VERSION = 8
#: the oldest schema read as it is, without migrating (a read-only reader cannot migrate): 2 differs from
#: 3 only in ``runs`` (``human`` held the expert's name, see :data:`DERIVED`), which readers allow for
READABLE_FROM = 2

#: EVINCE and machine-machine sessions, added by :func:`_evince`: the second agent's model and
#: the debate's settings (``runs``), each message's distribution (``messages``), the session's final
#: quality-weighted distribution (``data``); and the ``rounds`` table (:mod:`pxp_tui.blackboard.rounds`)
EVINCE_RUN_COLUMNS: tuple[tuple[str, type], ...] = (
    ("human_model", str),  # the model in the human's seat (human_kind 'model')
    ("human_temperature", float),
    ("top_k", int),  # distributions asked for (NULL: none)
    ("contentiousness", float),  # EVINCE's starting contentiousness (NULL: none in the prompts)
    ("contentiousness_decay", float),
    ("stop", str),  # pxp | evince | both
)
EVINCE_MESSAGE_COLUMNS: tuple[tuple[str, type], ...] = (
    ("distribution", str),  # JSON label -> probability, normalised
    # 1: a distribution was asked for and the reply stated none readable: the message has none (a file of an older
    # pxp holds a one-hot on the prediction in ``distribution`` then, which nothing reads); EVINCE leaves its round out
    ("distribution_fallback", int),
)
EVINCE_DATA_COLUMNS: tuple[tuple[str, type], ...] = (
    ("final_distribution", str),  # JSON: the agents' last distributions, weighted (EVINCE step 3)
    ("final_weights", str),  # JSON: {"machine": w, "human": w, "method": ..., "aggregation": ...}
)
#: schema 6, added by :func:`_measures`: how a run measures and stops its debates (``runs``), and each
#: round's CRIT verdict on the message that closes the round (``messages``); ``rounds`` gains the raw KL
#: divergences and cross entropies (:data:`pxp_tui.blackboard.rounds.MEASURES`)
MEASURE_RUN_COLUMNS: tuple[tuple[str, type], ...] = (
    ("evince_rule", str),  # fig1 | plateau: which of EVINCE's rules --stop evince|both applies
    ("stop_tolerance", float),  # a change smaller than this counts as none
    ("smoothing", float),  # of the smoothed KL divergence and cross entropy
    ("ground_metric", str),  # ordered | discrete: the Wasserstein distance's ground metric
    ("label_order", str),  # JSON array: the ordered metric's labels, positions 0, 1, ... (NULL: discrete)
    ("aggregation", str),  # entopps | weighted: how the final distribution combines the agents' last ones
)
MEASURE_MESSAGE_COLUMNS: tuple[tuple[str, type], ...] = (
    ("crit", str),  # JSON: the CRIT verdict of the round this message closes (EVINCE's judge, each round)
)
#: schema 8, added by :func:`_stated`: which MI EVINCE's stop rules compare (``runs``), and each instance's
#: reference as the debate evaluation compares it where that is not its text (``instances``, DRUG's canonical
#: SMILES: :mod:`pxp_tui.blackboard.reference_keys`)
STATED_RUN_COLUMNS: tuple[tuple[str, type], ...] = (
    ("evince_mi", str),  # nmi | mi: the normalised or the literal mutual information
)
STATED_INSTANCE_COLUMNS: tuple[tuple[str, type], ...] = (
    ("reference_key", str),  # the reference as the task compares a distribution's labels with it (NULL: as written)
)

TABLES: dict[str, dict] = {
    "runs": {
        "columns": {
            "id": int,
            "uid": str,
            "task": str,
            "dataset": str,
            "model": str,
            "checker": str,
            "human_kind": str,  # proxy | live (pxp_tui.common.kinds.HumanKind)
            "expert": str,  # the live expert's name (NULL for other kinds)
            **dict(EVINCE_RUN_COLUMNS),
            **dict(MEASURE_RUN_COLUMNS),
            **dict(STATED_RUN_COLUMNS),
            "n": int,
            "k": int,
            "context": str,
            "seed": int,
            "split": str,
            "experiment": str,
            "status": str,
            "error": str,
            "plan": str,
            "options": str,
            "created_at": str,
            "updated_at": str,
            "finished_at": str,
        },
        "pk": "id",
        "not_null": {"uid", "task", "dataset", "model", "human_kind", "n", "k", "context", "status", "plan"},
    },
    "datasets": {
        "columns": {"name": str, "task": str, "source": str, "description": str, "created_at": str},
        "pk": "name",
        "not_null": {"task"},
    },
    "images": {
        "columns": {"sha256": str, "mime": str, "width": int, "height": int, "data": bytes},
        "pk": "sha256",
        "not_null": {"data"},
    },
    "instances": {
        "columns": {
            "id": int,
            "dataset": str,
            "key": str,
            "split": str,
            "input": str,
            "image_sha": str,
            "reference_prediction": str,
            "reference_explanation": str,
            "meta": str,
            **dict(STATED_INSTANCE_COLUMNS),
        },
        "pk": "id",
        "not_null": {"dataset", "key"},
        "foreign_keys": [("dataset", "datasets", "name"), ("image_sha", "images", "sha256")],
    },
    "data": {
        "columns": {
            "session_id": int,
            "run_id": int,
            "instance_id": int,
            "ord": int,
            "started_at": str,
            "ended_at": str,
            "stop_reason": str,
            "n_messages": int,
            "context_kept": int,
            **dict(EVINCE_DATA_COLUMNS),
            **{column: int for column in firsts.COLUMNS},
        },
        "pk": "session_id",
        "not_null": {"run_id", "instance_id", "ord"},
        "foreign_keys": [("run_id", "runs", "id"), ("instance_id", "instances", "id")],
    },
    "messages": {
        "columns": {
            "session_id": int,
            "j": int,
            "sender": str,
            "receiver": str,
            "tag": str,
            "prediction": str,
            "explanation": str,
            "created_at": str,
            "guard_match": int,
            "guard_agree": int,
            "guard_changed": int,
            "model": str,
            "latency_ms": float,
            "answer_ms": float,  # the live expert's time on this answer: from their turn shown to send
            "prompt_tokens": int,
            "completion_tokens": int,
            "cost": float,
            "raw": str,
            **dict(EVINCE_MESSAGE_COLUMNS),
            **dict(MEASURE_MESSAGE_COLUMNS),
        },
        "pk": ("session_id", "j"),
        "not_null": {"sender", "receiver", "tag", "created_at"},
        "foreign_keys": [("session_id", "data", "session_id")],
    },
    "context": {
        "columns": {"session_id": int, "j": int, "context": str},
        "pk": ("session_id", "j"),
        "not_null": {"context"},
        "foreign_keys": [("session_id", "data", "session_id")],
    },
}

TABLES.update(
    {
        # machine performance on a split (DESIGN.md section 1, LEARN gate): one row per measurement
        "evaluations": {
            "columns": {
                "id": int,
                "run_id": int,
                "phase": str,  # start | session | end
                "split": str,  # val (the LEARN gate) | test
                "session_id": int,  # the session just finished (phase session)
                "sessions": int,  # sessions finished in the run when measured
                "context_sessions": int,  # earlier sessions in the machine's context
                "instances": int,
                "correct": int,  # MATCH(machine prediction, reference)
                "agreed": int,  # AGREE(machine explanation, reference), by the checker
                "both": int,
                "p_correct": float,
                "p_agreed": float,
                "p_both": float,
                "kept": int,  # the LEARN gate's decision (val rows of phase session)
                "model": str,
                "checker": str,
                "latency_ms": float,
                "prompt_tokens": int,
                "completion_tokens": int,
                "cost": float,
                "created_at": str,
            },
            "pk": "id",
            "not_null": {"run_id", "phase", "split", "instances", "created_at"},
            "foreign_keys": [("run_id", "runs", "id"), ("session_id", "data", "session_id")],
        },
        "evaluation_items": {
            "columns": {
                "evaluation_id": int,
                "instance_id": int,
                "prediction": str,
                "explanation": str,
                "correct": int,
                "agreed": int,
                "latency_ms": float,
                "prompt_tokens": int,
                "completion_tokens": int,
                "cost": float,
            },
            "pk": ("evaluation_id", "instance_id"),
            "foreign_keys": [("evaluation_id", "evaluations", "id"), ("instance_id", "instances", "id")],
        },
    }
)

TABLES.update(
    {
        # what the expert or a reviewer noted about a session (flag it for later, a free-text note); one row
        # per annotated session, written at any time (never a message: the protocol's messages are append-only)
        "annotations": {
            "columns": {
                "session_id": int,
                "run_id": int,  # the session's run (what `pxp merge` copies by)
                "flagged": int,  # 1: flagged for later
                "note": str,
                "updated_at": str,
            },
            "pk": "session_id",
            "not_null": {"run_id", "updated_at"},
            "foreign_keys": [("session_id", "data", "session_id"), ("run_id", "runs", "id")],
        },
    }
)

#: a session the expert skipped (see StopReason.SKIPPED): listed, never measured
NOT_SKIPPED = "stop_reason IS NOT 'skipped'"

TABLES["rounds"] = rounds.TABLE

#: schema 7, added by :func:`_drafts`: the expert's unsent answer, one row per (session, message j) being answered,
#: replaced as they type and deleted when that message is stored or the session ends (:data:`DRAFT_TRIGGERS`).
#: Never a message: see :mod:`pxp_tui.blackboard.drafts`
TABLES["drafts"] = {
    "columns": {
        "session_id": int,
        "j": int,  # the message the expert is answering with it
        "run_id": int,
        "tag": str,  # RATIFY | REFUTE | REVISE | REJECT, or NULL: none chosen yet
        "prediction": str,  # the prediction field as typed
        "explanation": str,  # the explanation field as typed
        "updated_at": str,
    },
    "pk": ("session_id", "j"),
    "not_null": {"run_id", "updated_at"},
    "foreign_keys": [("session_id", "data", "session_id"), ("run_id", "runs", "id")],
}
DRAFT_TRIGGERS = (
    # the message is stored (by the app, or by any other writer): its draft, and any older one, goes with it
    "CREATE TRIGGER IF NOT EXISTS messages_drafts_sent AFTER INSERT ON messages BEGIN\n"
    "  DELETE FROM drafts WHERE session_id = NEW.session_id AND j <= NEW.j;\nEND",
    # the session ended (skipped, stopped, finished): nothing is left to answer
    "CREATE TRIGGER IF NOT EXISTS data_drafts_ended AFTER UPDATE OF ended_at ON data WHEN NEW.ended_at IS NOT NULL BEGIN\n"
    "  DELETE FROM drafts WHERE session_id = NEW.session_id;\nEND",
)

INDEXES: list[tuple[str, list[str], bool]] = [
    ("runs", ["uid"], True),
    ("instances", ["dataset", "key"], True),
    ("data", ["run_id", "ord"], True),
    ("data", ["instance_id"], False),
    ("evaluations", ["run_id", "phase", "split", "session_id"], False),
]

#: every session's intelligibility flags (DESIGN.md section 2), from the firsts kept in ``data``
SESSION_VIEW = f"""
SELECT run_id, session_id, instance_id, ord, stop_reason, ended_at IS NOT NULL AS finished,
  stop_reason IS 'skipped' AS skipped, n_messages,
  {firsts.flag_columns()}
FROM data
"""


#: who answered in the human's seat, in words: the expert's name, else the kind (``proxy``)
HUMAN_LABEL = "COALESCE(r.expert, r.human_kind)"

#: per-run counts and proportions over finished sessions (the papers' table)
RUN_VIEW = (
    f"SELECT r.id AS run_id, r.task, r.dataset, r.model, r.checker, {HUMAN_LABEL} AS human, r.human_kind, r.expert,\n"
    "  r.status,\n"
    "  COUNT(s.session_id) AS sessions,\n"
    + ",\n".join(f"  COALESCE(SUM(s.{c}), 0) AS {c}" for c in CLASSES)
    + ",\n"
    + ",\n".join(
        f"  ROUND(CASE WHEN COUNT(s.session_id) THEN 1.0 * SUM(s.{c}) / COUNT(s.session_id) ELSE 0 END, 4) AS p_{c}"
        for c in CLASSES
    )
    + "\nFROM runs r LEFT JOIN session_intelligibility s ON s.run_id = r.id AND s.finished AND NOT s.skipped\nGROUP BY r.id"
)

#: the machine's first answer in every session against the instance's reference, as the human judged
#: it at message 2 (the proxy: MATCH with the reference, AGREE by the checker): performance as the
#: context grows
PERFORMANCE_VIEW = """
SELECT d.run_id, d.session_id, d.ord, d.instance_id, i.key, i.reference_prediction,
  m.prediction AS machine_prediction, m.prompt_tokens,
  h.guard_match AS correct, h.guard_agree AS agreed, (h.guard_match AND h.guard_agree) AS both
FROM data d
JOIN instances i ON i.id = d.instance_id
JOIN messages m ON m.session_id = d.session_id AND m.j = 1
LEFT JOIN messages h ON h.session_id = d.session_id AND h.j = 2
WHERE d.stop_reason IS NOT 'skipped'
"""

VIEWS = {
    "session_intelligibility": SESSION_VIEW,
    "run_intelligibility": RUN_VIEW,
    "session_performance": PERFORMANCE_VIEW,
    "round_information": rounds.ROUND_VIEW,
    "unstated_rounds": rounds.UNSTATED_VIEW,
    "session_information": rounds.SESSION_VIEW,
    **debate_eval.VIEWS,
}


def create(db: sqlite_utils.Database) -> None:
    """Create every table, index and view of the current schema in an empty database."""
    with db.atomic():
        _create_tables(db)
        firsts.create_triggers(db)
        rounds.create_trigger(db)
        _draft_triggers(db)
        for table, columns, unique in INDEXES:
            db.table(table).create_index(columns, unique=unique, if_not_exists=True)
        _replace_views(db)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def table_columns(db: sqlite_utils.Database, schema_name: str, table: str) -> list[str]:
    """The column names of ``table`` in database ``schema_name`` (``main``, or an attached one); [] if none."""
    return [row[1] for row in db.execute(f"PRAGMA {schema_name}.table_info([{table}])")]


def shared_columns(db: sqlite_utils.Database, schema_name: str, table: str) -> list[str]:
    """The columns of ``table`` in ``schema_name`` that ``main``'s ``table`` has too, in the former's order."""
    ours = set(table_columns(db, "main", table))
    return [c for c in table_columns(db, schema_name, table) if c in ours]


def _create_tables(db: sqlite_utils.Database) -> None:
    """Every table of :data:`TABLES` that is not there yet."""
    for name, spec in TABLES.items():
        db.table(name).create(
            spec["columns"],
            pk=spec["pk"],
            not_null=spec.get("not_null"),
            foreign_keys=spec.get("foreign_keys"),
            if_not_exists=True,
        )


def _replace_views(db: sqlite_utils.Database) -> None:
    """Every view of :data:`VIEWS`, made anew (a view may read another, so all are dropped first)."""
    for name in VIEWS:
        db.execute(f"DROP VIEW IF EXISTS {name}")
    for name, sql in VIEWS.items():
        db.create_view(name, sql)


def _firsts(db: sqlite_utils.Database) -> None:
    """Version 1 -> 2: where each agent first sent each kind of tag, in ``data``; the machine's measurements."""
    firsts.add_to_v1(db)
    _create_tables(db)  # evaluations, evaluation_items (new in version 2)


#: RAD's five conditions, the label order its runs measured the Wasserstein distance with before schema 6
_RAD_ORDER = '["Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax"]'

#: (table, column) -> the SQL that computes a column of this schema from an older file's columns (its
#: migration fills it so; ``pxp merge`` copies an older file's rows so; Run.from_row reads them so)
DERIVED = {
    ("runs", "expert"): "CASE WHEN human_kind = 'live' THEN human END",
    # schema 6: the runs before it measured and stopped as the code of their time did
    ("runs", "evince_rule"): f"'{PLATEAU}'",
    ("runs", "stop_tolerance"): repr(OLD_TOLERANCE),
    ("runs", "smoothing"): "0.01",
    ("runs", "ground_metric"): "CASE WHEN task = 'rad' THEN 'ordered' ELSE 'discrete' END",
    ("runs", "label_order"): f"CASE WHEN task = 'rad' THEN '{_RAD_ORDER}' END",
    ("runs", "aggregation"): f"'{WEIGHTED}'",
    # schema 8: the runs before it compared the normalised MI
    ("runs", "evince_mi"): f"'{NMI}'",
}


def _expert(db: sqlite_utils.Database) -> None:
    """Version 2 -> 3: the expert's name in its own column, ``expert``; ``human`` (which held it, or
    ``proxy``) goes. ``human_kind`` alone says who answered, so an expert may be called anything."""
    db.execute("ALTER TABLE runs ADD COLUMN expert TEXT")
    db.execute(f"UPDATE runs SET expert = {DERIVED['runs', 'expert']}")
    db.table("runs").transform(drop={"human"})


def _annotations(db: sqlite_utils.Database) -> None:
    """Version 3 -> 4: the expert's time per answer (``messages.answer_ms``, unknown for older messages) and
    the sessions' flags and notes (``annotations``). Skipped sessions need no column: ``data.stop_reason``."""
    if "answer_ms" not in table_columns(db, "main", "messages"):
        db.execute("ALTER TABLE messages ADD COLUMN answer_ms FLOAT")
    _create_tables(db)  # annotations


def _evince(db: sqlite_utils.Database) -> None:
    """Version 4 -> 5 (EVINCE): distributions on messages, the debate's settings on runs, the final
    distribution on data, and ``rounds`` with its trigger. Older rows have no distribution: no rounds."""
    for table, columns in (
        ("runs", EVINCE_RUN_COLUMNS),
        ("messages", EVINCE_MESSAGE_COLUMNS),
        ("data", EVINCE_DATA_COLUMNS),
    ):
        have = set(table_columns(db, "main", table))  # an older step may have made the table as it is now
        for name, kind in columns:
            if name in have:
                continue
            db.execute(
                f"ALTER TABLE {table} ADD COLUMN {name} {'REAL' if kind is float else 'INTEGER' if kind is int else 'TEXT'}"
            )
    _create_tables(db)  # rounds
    rounds.create_trigger(db)


def _add_columns(db: sqlite_utils.Database, table: str, columns: tuple[tuple[str, type], ...]) -> list[str]:
    """Add the columns ``table`` lacks (an older step may have made it as it is now); the names added."""
    have = set(table_columns(db, "main", table))
    added = []
    for name, kind in columns:
        if name not in have:
            db.execute(
                f"ALTER TABLE {table} ADD COLUMN {name} {'REAL' if kind is float else 'INTEGER' if kind is int else 'TEXT'}"
            )
            added.append(name)
    return added


def _measures(db: sqlite_utils.Database) -> None:
    """Version 5 -> 6: each run's EVINCE settings (the stop rule and its tolerance, the smoothing, the ground
    metric, the aggregation), filled for older runs as they measured and stopped (:data:`DERIVED`); each
    round's CRIT verdict on its closing message; the raw KL divergences and cross entropies in ``rounds``,
    whose rows are all measured anew (the older ones had none)."""
    for name in _add_columns(db, "runs", MEASURE_RUN_COLUMNS):
        db.execute(f"UPDATE runs SET {name} = {DERIVED['runs', name]}")
    _add_columns(db, "messages", MEASURE_MESSAGE_COLUMNS)
    _add_columns(db, "rounds", tuple((name, float) for name in rounds.MEASURES))
    rounds.recompute(db)


def _draft_triggers(db: sqlite_utils.Database) -> None:
    for sql in DRAFT_TRIGGERS:
        db.execute(sql)


def _drafts(db: sqlite_utils.Database) -> None:
    """Version 6 -> 7: the expert's unsent answers (``drafts``), with the triggers that delete a draft once its
    message is stored or its session ends. Older files had none to keep."""
    _create_tables(db)  # drafts
    _draft_triggers(db)


def _stated(db: sqlite_utils.Database) -> None:
    """Version 7 -> 8: a reply without a readable distribution has none. Older files hold a one-hot on its
    prediction, marked by ``distribution_fallback``: every round is measured anew without them (their rounds
    are left out), and the sessions EVINCE's rule stopped, all stored as ``converged``, get the stop reason their
    rule found as they ran (:func:`rounds.reclassify`: ``diverged``, ``stalled`` or ``converged``). Each run's
    compared MI (``evince_mi``: the normalised, as they ran), and DRUG's references as canonical SMILES
    (``instances.reference_key``) for the debate evaluation."""
    for name in _add_columns(db, "runs", STATED_RUN_COLUMNS):
        db.execute(f"UPDATE runs SET {name} = {DERIVED['runs', name]}")
    _add_columns(db, "instances", STATED_INSTANCE_COLUMNS)
    reference_keys.fill(db)
    rounds.reclassify(db)
    rounds.recompute(db)


#: version -> step that brings a blackboard from that version to the next
MIGRATIONS: dict[int, Callable[[sqlite_utils.Database], None]] = {
    1: _firsts,
    2: _expert,
    3: _annotations,
    4: _evince,
    5: _measures,
    6: _drafts,
    7: _stated,
}


def migrate(db: sqlite_utils.Database, version: int) -> None:
    """Bring a blackboard at ``version`` forward to :data:`SCHEMA_VERSION` in one transaction: all of it, or
    nothing (a failure leaves the file as it was). The views are made anew for the tables the steps changed."""
    with db.atomic():
        for name in VIEWS:
            db.execute(f"DROP VIEW IF EXISTS {name}")
        for step in range(version, SCHEMA_VERSION):
            MIGRATIONS[step](db)
        _replace_views(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
