"""What defines a run (what ``pxp run`` takes), and how a stored run reads back as one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pxp_tui.common.models import OFFLINE
from pxp_tui.engine import ContextPolicy
from pxp_tui.tasks import get_task

PROXY = "proxy"


@dataclass
class RunConfig:
    """Everything that defines a run (what ``pxp run`` takes). Never holds credentials."""

    task: str = "drug"
    dataset: str | None = None  # None: the task's bundled demo
    model: str = OFFLINE
    checker: str | None = None  # None: the machine's model
    human: str = PROXY  # "proxy", or the live expert's name
    n: int = 10
    k: int = 3
    context: str = "all"
    seed: int | None = None  # None: dataset order
    limit: int | None = None
    split: str = "train"
    api_base: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    experiment: str | None = None
    learn_gate: bool = False  # keep a session's context only if validation accuracy does not drop
    evaluate: bool = False  # measure the machine on the test split (start, after kept sessions, end)
    timeout: float | None = None  # seconds per model call
    retries: int | None = None  # retries of a failed model call
    checker_api_base: str | None = None
    checker_max_tokens: int | None = None
    checker_temperature: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ValueError with a one-line reason for a configuration that cannot run."""
        get_task(self.task)
        if self.n < 1:
            raise ValueError(f"--n must be at least 1, got {self.n}")
        if self.k < 1:
            raise ValueError(f"--k must be at least 1, got {self.k}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {self.limit}")
        ContextPolicy.parse(self.context)
        if not self.human.strip():
            raise ValueError("the human's name is empty")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"--timeout must be more than 0 seconds, got {self.timeout}")
        if self.retries is not None and self.retries < 0:
            raise ValueError(f"--retries must be 0 or more, got {self.retries}")

    @property
    def human_kind(self) -> str:
        return "proxy" if self.human == PROXY else "live"

    @property
    def checker_model(self) -> str:
        return self.checker or self.model


COLUMNS = {"task", "dataset", "model", "checker", "human", "n", "k", "context", "seed", "split", "experiment"}


def config_of(run: dict[str, Any]) -> RunConfig:
    """The configuration a stored run was made with."""
    options = dict(run.get("options") or {})
    known = set(RunConfig.__dataclass_fields__)
    return RunConfig(
        task=run["task"],
        dataset=run["dataset"],
        model=run["model"],
        checker=run["checker"],
        human=run["human"],
        n=run["n"],
        k=run["k"],
        context=run["context"],
        seed=run["seed"],
        split=run["split"] or "train",
        experiment=run["experiment"],
        **{k: v for k, v in options.items() if k in known and k not in COLUMNS},
    )
