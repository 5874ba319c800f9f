"""Typed records of what the blackboard holds: a run (a row of ``runs``: its :class:`RunConfig` and the rest), and a
run with its counts."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.engine import RunStatus
from pxp_tui.protocol import RunCounts
from pxp_tui.protocol.evince import NMI, OLD_TOLERANCE, PLATEAU, WEIGHTED
from pxp_tui.protocol.information import SMOOTHING

#: RAD's five conditions: the label order its runs measured the Wasserstein distance with before schema 6
_RAD_ORDER = ("Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax")

#: the key of ``runs.options`` that marks a run copied by ``pxp merge``: where its original was written
MERGED_FROM = "merged_from"


def _json(value: Any, empty: Any) -> Any:
    """A JSON column's value: parsed if it is still text, ``empty`` if NULL."""
    if value is None:
        return empty
    return json.loads(value) if isinstance(value, (str, bytes)) else value


@dataclass(frozen=True)
class Run:
    """One run, as stored in ``runs``: the configuration it was made with, and what the blackboard keeps of it
    besides (``status`` as readers see it: see :class:`RunStatus`).

    ``config`` is the :class:`RunConfig` given to :meth:`Blackboard.create_run` as it was stored: its dataset
    named (the task's demo when none was given), its checker's model, its context policy normalised.
    """

    id: int
    uid: str
    config: RunConfig
    status: RunStatus
    error: str | None  # why it paused, credentials redacted
    plan: tuple[int, ...]  # the instances, in session order
    created_at: str = ""
    updated_at: str = ""
    finished_at: str | None = None
    #: the ordered ground metric's labels, positions 0, 1, ... as the run measures its rounds (None: the 0/1
    #: metric): the task's order when the run was made, kept with it (RAD's older runs kept an older one)
    label_order: tuple[str, ...] | None = None
    merged_from: Mapping[str, Any] | None = None  # where ``pxp merge`` copied it from (``file``, ``path``, ``run_id``)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Run:
        """The run of a ``runs`` row (``plan`` and ``options`` as stored, JSON text, or parsed); a row of an older
        file, read without migrating it (from ``schema.READABLE_FROM``), too."""
        return cls(
            id=row["id"],
            uid=row["uid"],
            config=config_of(row),
            status=RunStatus(row["status"]),
            error=row["error"],
            plan=tuple(_json(row["plan"], [])),
            created_at=row["created_at"] or "",
            updated_at=row["updated_at"] or "",
            finished_at=row["finished_at"],
            label_order=_measuring(row)["label_order"],
            merged_from=_merged_from(_json(row["options"], {})),
        )

    @property
    def human(self) -> str:
        """Who answered in the human's seat, in words: the expert's name, else the kind (``proxy``).

        The ``human`` column of the ``run_intelligibility`` view (schema.HUMAN_LABEL) says the same.
        """
        config = self.config
        if config.human_kind is HumanKind.MODEL and config.human_model:
            return f"model:{config.human_model}"
        return config.expert or config.human_kind.value

    @property
    def finished(self) -> bool:
        return self.status is RunStatus.DONE

    @property
    def copy_of(self) -> Mapping[str, Any] | None:
        """Where the original of this unfinished copy is (see :attr:`merged_from`): it is continued there, never
        here, since two processes would drive one run. None for an original, or a finished run."""
        return None if self.finished else self.merged_from


def _merged_from(options: Mapping[str, Any]) -> Mapping[str, Any] | None:
    found = options.get(MERGED_FROM)
    return found if isinstance(found, Mapping) else None


def _measuring(row: Mapping[str, Any]) -> dict[str, Any]:
    """How a run measures and stops its debates; a row of a file older than schema 6 (read as it is) as the
    code of its time did (schema.DERIVED's rules)."""
    if row.get("evince_rule") is None:
        rad = row["task"] == "rad"
        return {
            "evince_rule": PLATEAU,
            "stop_tolerance": OLD_TOLERANCE,
            "smoothing": SMOOTHING,
            "ground_metric": "ordered" if rad else "discrete",
            "label_order": _RAD_ORDER if rad else None,
            "aggregation": WEIGHTED,
            "evince_mi": NMI,
        }
    order = _json(row.get("label_order"), None)
    return {
        "evince_rule": row["evince_rule"],
        "stop_tolerance": OLD_TOLERANCE if row.get("stop_tolerance") is None else row["stop_tolerance"],
        "smoothing": SMOOTHING if row.get("smoothing") is None else row["smoothing"],
        "ground_metric": row.get("ground_metric") or ("ordered" if order else "discrete"),
        "label_order": tuple(order) if order else None,
        "aggregation": row.get("aggregation") or WEIGHTED,
        "evince_mi": row.get("evince_mi") or NMI,  # schema 7 and older compared the normalised MI
    }


#: the fields of :class:`RunConfig`, by name
_FIELDS = {f.name for f in fields(RunConfig)}


def stored(config: RunConfig, columns: Collection[str]) -> dict[str, Any]:
    """``config`` as a ``runs`` row: each field in the column of its name if ``runs`` has one (``columns``), the
    others, when set, in ``options`` (JSON). So a new field of :class:`RunConfig` is stored with nothing to add."""
    values = {f.name: getattr(config, f.name) for f in fields(config)}
    row = {k: v.value if isinstance(v, Enum) else v for k, v in values.items() if k in columns}
    options = {k: v for k, v in values.items() if k not in columns and v not in (None, {}, [])}
    return {**row, "options": json.dumps(options, sort_keys=True)}


def config_of(row: Mapping[str, Any]) -> RunConfig:
    """The :class:`RunConfig` stored in a ``runs`` row (the reverse of :func:`stored`). A column that is NULL, or
    absent from an older file, reads as the field's default, but for how a debate is measured and stopped,
    which reads as the code of the file's time ran it (:func:`_measuring`); options a newer pxp stored are
    left out."""
    options = _json(row["options"], {})
    values = {k: v for k, v in options.items() if k in _FIELDS}
    values.update({k: row[k] for k in _FIELDS if k in row and row[k] is not None})
    values.update({k: v for k, v in _measuring(row).items() if k in _FIELDS})
    if "expert" not in row:
        values["expert"] = _expert_of_schema_2(row)
    values["human_kind"] = HumanKind(values["human_kind"])
    return RunConfig(**values)


def _expert_of_schema_2(row: Mapping[str, Any]) -> str | None:
    """Schema 2 kept the expert's name in ``human`` (``proxy`` for the proxy): schema.DERIVED's rule."""
    return row["human"] if row["human_kind"] == HumanKind.LIVE.value else None


@dataclass(frozen=True)
class RunSummary:
    """A run with its intelligibility counts (finished sessions) and how far it has got: a line of a runs list."""

    run: Run
    counts: RunCounts
    planned: int  # sessions in its plan
    started: int  # sessions started (finished or not)
