"""Task registry. A new domain is one module implementing :class:`pxp_tui.tasks.base.Task`."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pxp_tui.tasks.base import Task

#: task name -> "module:class"
TASKS: dict[str, str] = {
    "drug": "pxp_tui.tasks.drug.task:DrugTask",
    "rad": "pxp_tui.tasks.rad.task:RadTask",
    "diagnosis": "pxp_tui.tasks.diagnosis.task:DiagnosisTask",
}

_loaded: dict[str, Task] = {}
#: the offline model of the human's seat in a machine-machine run is ``pxp-offline/<task>-second``
SECOND_SUFFIX = "-second"


def get_task(name: str) -> Task:
    """The task called ``name``. Its offline models are registered where a run is wired
    (:func:`pxp_tui.runs.seats.register_offline_models`), not here: a task calls no model."""
    if name not in _loaded:
        if name not in TASKS:
            raise ValueError(f"unknown task {name!r} (known: {', '.join(sorted(TASKS))})")
        module, _, cls = TASKS[name].partition(":")
        _loaded[name] = getattr(import_module(module), cls)()
    return _loaded[name]
