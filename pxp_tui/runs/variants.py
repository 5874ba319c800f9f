"""The task of a run as its configuration words it: ``--prompts``, ``--rad-question``, DRUG's few-shot examples
(the dataset's ``shots`` split, read for the reference's prompts), DRUG's MATCH rule (``--drug-match``) and what a
RAD reply naming no condition gets (``--rad-unnamed``)."""

from __future__ import annotations

from pxp_tui.blackboard import Blackboard
from pxp_tui.config import RunConfig
from pxp_tui.tasks import get_variant
from pxp_tui.tasks.base import Task
from pxp_tui.tasks.csvdata import SHOTS


def task_of(config: RunConfig, board: Blackboard, dataset: str) -> Task:
    """The run's task: the registered one, or its variant for the run's prompts and question."""
    shots: tuple[tuple[str, str, str], ...] = ()
    if config.prompts == "reference" and config.task == "drug":
        found = board.instances(board.instance_ids(dataset, SHOTS))
        shots = tuple((i.input, i.reference_prediction, i.reference_explanation) for i in found)
    return matching(get_variant(config.task, config.prompts, config.rad_question, shots), config)


def matching(task: Task, config: RunConfig) -> Task:
    """``task`` with the run's rules for reading and comparing answers: DRUG's MATCH (``--drug-match``), RAD's reply
    naming no condition (``--rad-unnamed``)."""
    from pxp_tui.tasks.drug.task import DrugTask
    from pxp_tui.tasks.rad.task import RadTask

    if isinstance(task, DrugTask):
        return task.with_match(config.drug_match)
    if isinstance(task, RadTask):
        return task.with_unnamed(config.rad_unnamed)
    return task
