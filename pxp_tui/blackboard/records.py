"""Typed records of what the blackboard holds: a run (a row of ``runs``), and a run with its counts."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pxp_tui.common.kinds import HumanKind
from pxp_tui.engine import RunStatus
from pxp_tui.protocol import RunCounts
from pxp_tui.protocol.evince import DECAY, ENTOPPS, FIG1, OLD_TOLERANCE, PLATEAU, TOLERANCE, WEIGHTED
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
    """One run, as stored in ``runs`` (with ``status`` as readers see it: see :class:`RunStatus`)."""

    id: int
    uid: str
    task: str
    dataset: str
    model: str  # the machine's model (``offline``: the baseline)
    checker: str | None  # the model of AGREE (stored by every run pxp makes)
    human_kind: HumanKind  # who answers in the human's seat
    expert: str | None  # the live expert's name (None for other kinds)
    n: int
    k: int
    context: str  # all | none | last:N
    seed: int | None
    split: str
    experiment: str | None
    status: RunStatus
    error: str | None  # why it paused, credentials redacted
    plan: tuple[int, ...]  # the instances, in session order
    options: Mapping[str, Any] = field(default_factory=dict)  # the rest of its configuration (RunConfig)
    created_at: str = ""
    updated_at: str = ""
    finished_at: str | None = None
    # the other agent and the debate (issue 10; NULL in files of schema 3 and older)
    human_model: str | None = None  # the model in the human's seat (human_kind ``model``)
    human_temperature: float | None = None
    top_k: int | None = None  # distributions asked for, top-k (None: none)
    contentiousness: float | None = None  # EVINCE's starting contentiousness (None: none in the prompts)
    contentiousness_decay: float = DECAY
    stop: str = "pxp"  # pxp | evince | both
    # how the debate is measured and stopped (schema 6; older runs read as they ran: schema.DERIVED)
    evince_rule: str = FIG1  # fig1 | plateau
    stop_tolerance: float = TOLERANCE
    smoothing: float = SMOOTHING
    ground_metric: str = "discrete"  # ordered | discrete
    label_order: tuple[str, ...] | None = None  # the ordered metric's labels (None: discrete)
    aggregation: str = ENTOPPS  # entopps | weighted

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Run:
        """The run of a ``runs`` row (``plan`` and ``options`` as stored, JSON text, or parsed); a row of
        a schema-2 file (read-only, so not migrated) too."""
        kind = HumanKind(row["human_kind"])
        return cls(
            id=row["id"],
            uid=row["uid"],
            task=row["task"],
            dataset=row["dataset"],
            model=row["model"],
            checker=row["checker"],
            human_kind=kind,
            expert=row["expert"] if "expert" in row else _expert_of_schema_2(row),
            n=row["n"],
            k=row["k"],
            context=row["context"],
            seed=row["seed"],
            split=row["split"] or "train",
            experiment=row["experiment"],
            status=RunStatus(row["status"]),
            error=row["error"],
            plan=tuple(_json(row["plan"], [])),
            options=_json(row["options"], {}),
            created_at=row["created_at"] or "",
            updated_at=row["updated_at"] or "",
            finished_at=row["finished_at"],
            human_model=row.get("human_model"),
            human_temperature=row.get("human_temperature"),
            top_k=row.get("top_k"),
            contentiousness=row.get("contentiousness"),
            contentiousness_decay=DECAY if row.get("contentiousness_decay") is None else row["contentiousness_decay"],
            stop=row.get("stop") or "pxp",
            **_measuring(row),
        )

    @property
    def human(self) -> str:
        """Who answered in the human's seat, in words: the expert's name, else the kind (``proxy``).

        The ``human`` column of the ``run_intelligibility`` view (schema.HUMAN_LABEL) says the same.
        """
        if self.human_kind is HumanKind.MODEL and self.human_model:
            return f"model:{self.human_model}"
        return self.expert or self.human_kind.value

    @property
    def finished(self) -> bool:
        return self.status is RunStatus.DONE

    @property
    def merged_from(self) -> Mapping[str, Any] | None:
        """Where ``pxp merge`` copied this run from (``file``, ``path``, ``run_id`` there), if it is a copy."""
        found = self.options.get(MERGED_FROM)
        return found if isinstance(found, Mapping) else None

    @property
    def copy_of(self) -> Mapping[str, Any] | None:
        """Where the original of this unfinished copy is (see :attr:`merged_from`): it is continued there, never
        here, since two processes would drive one run. None for an original, or a finished run."""
        return None if self.finished else self.merged_from


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
        }
    order = _json(row.get("label_order"), None)
    return {
        "evince_rule": row["evince_rule"],
        "stop_tolerance": OLD_TOLERANCE if row.get("stop_tolerance") is None else row["stop_tolerance"],
        "smoothing": SMOOTHING if row.get("smoothing") is None else row["smoothing"],
        "ground_metric": row.get("ground_metric") or ("ordered" if order else "discrete"),
        "label_order": tuple(order) if order else None,
        "aggregation": row.get("aggregation") or WEIGHTED,
    }


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
