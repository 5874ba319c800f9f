"""What defines a run: :class:`RunConfig`, one shape from ``pxp run``'s options (and the start screen) to the
blackboard and back.

:class:`RunConfig`'s field defaults are the only statement of each default: ``pxp run``'s options
and the start screen read them from :data:`DEFAULTS`. The blackboard stores a run's configuration whole
and gives it back as :attr:`Run.config <pxp_tui.blackboard.records.Run.config>`: a field is stored in the
column of ``runs`` of its name if there is one, else in the run's ``options`` JSON (so a new field is one
line here). Importing this module imports neither the blackboard, the agents nor the engine: ``pxp``
builds its parser and the start screen from it before the first paint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pxp_tui.common.kinds import HumanKind
from pxp_tui.common.models import OFFLINE
from pxp_tui.protocol import evince, information
from pxp_tui.tasks import get_task
from pxp_tui.tasks.drug.matching import MATCH_RULES, SAME_SET


@dataclass
class RunConfig:
    """Everything that defines a run (what ``pxp run`` takes). Never holds credentials."""

    task: str = "drug"
    dataset: str | None = None  # None: the task's bundled demo
    model: str = OFFLINE
    checker: str | None = None  # None: the machine's model
    human_kind: HumanKind = HumanKind.PROXY  # who answers in the human's seat
    expert: str | None = None  # the live expert's name
    n: int = 10
    k: int = 3
    context: str = "all"
    seed: int | None = None  # None: dataset order
    limit: int | None = None
    split: str = "train"
    api_base: str | None = None
    max_tokens: int | None = None  # None: the task's
    temperature: float | None = None  # None: the task's
    experiment: str | None = None
    learn_gate: bool = False  # keep a session's context only if validation accuracy passes the rule below
    #: the LEARN gate's accuracy: ``match-and-agree`` (a right prediction with an agreeing explanation: the
    #: reference's "overall accuracy") or ``match`` (the prediction alone); docs/FIDELITY.md, row learn-metric
    learn_metric: str = "match-and-agree"
    #: ``improves`` (the journal's words: strictly better) or ``does-not-drop`` (the reference: equal is kept)
    learn_rule: str = "improves"
    #: ``measure`` (the first session is judged against the machine with no context, measured at the start) or
    #: ``keep`` (the reference: the first session is always kept and sets the baseline)
    learn_first: str = "measure"
    evaluate: bool = False  # measure the machine on the test split (start, after kept sessions, end)
    timeout: float | None = None  # seconds per model call (None: the client's default)
    retries: int | None = None  # retries of a failed model call (None: the client's default)
    max_reply: int | None = None  # KB a model's reply may hold, larger ones refused unread (None: the client's default)
    checker_api_base: str | None = None
    checker_max_tokens: int | None = None  # None: the checker's default
    checker_temperature: float | None = None  # None: the checker's default
    #: the prompts' wording: ``pxp`` (this project's), ``paper`` (the papers' Examples 1 and 2), ``reference``
    #: (the reference scripts': the oracle sentence, DRUG's few-shot examples); docs/FIDELITY.md, row prompts
    prompts: str = "pxp"
    #: RAD's prediction: ``disease`` (one of five: the journal, the reference) or ``yes-no`` (the conference's
    #: Example 1: is the case's disease present?)
    rad_question: str = "disease"
    #: DRUG's MATCH: ``same-set`` (the papers), ``any-in-common`` (the reference scripts as they run) or
    #: ``any-in-common-or-fingerprint`` (their code as written); docs/FIDELITY.md, row match-drug
    drug_match: str = SAME_SET
    #: a RAD reply naming none of the five conditions: ``ask-again`` (pxp) or ``wrong`` (kept and scored wrong, as the
    #: reference scripts do); docs/FIDELITY.md, row rad-unnamed
    rad_unnamed: str = "ask-again"
    preset: str | None = None  # the preset the run was made from (pxp run --preset)
    preset_overrides: list[str] | None = None  # the preset's values the researcher's options replaced
    #: every setting the models are called with, as the run was made (runs.seats.effective; "provider default":
    #: not sent): a record, filled when the run is stored, not an option
    effective: dict[str, Any] | None = None
    # machine-machine sessions and EVINCE
    human_model: str | None = None  # the model in the human's seat (--human model:<litellm model>)
    human_temperature: float | None = None  # None: the task's (the offline second reader ignores it)
    human_api_base: str | None = None  # base URL of an OpenAI-compatible server for the second model
    top_k: int | None = None  # ask both agents for a top-k distribution with each answer (None: none)
    contentiousness: float | None = None  # EVINCE's starting contentiousness in both prompts (None: none)
    contentiousness_decay: float = evince.DECAY  # less each round after the first two
    stop: str = "pxp"  # pxp | evince | both (EVINCE's rule needs distributions: --top-k)
    #: which of EVINCE's stop rules --stop evince|both applies: Figure 1's loop (the paper's algorithm, with
    #: CRIT each round) or the plateau of its prose
    evince_rule: str = evince.FIG1
    stop_tolerance: float = evince.TOLERANCE  # a change of WD, MI or CRIT/10 smaller than this counts as none
    #: which mutual information the stop rules compare: ``nmi`` (normalised by the larger entropy: what the
    #: paper's results call MI) or ``mi`` (Figure 1's letter: the mutual information in bits)
    evince_mi: str = evince.NMI
    smoothing: float = information.SMOOTHING  # of the smoothed KL divergence and cross entropy (the raw are kept too)
    ground_metric: str | None = None  # ordered | discrete: the Wasserstein distance's (None: the task's)
    #: how a session's final distribution weighs the agents: crit (a judge, the checker's model) | equal
    final_weights: str = "crit"
    #: how it combines them: EnToPPS when their top-k label sets differ, else the weighted average | weighted
    aggregation: str = evince.ENTOPPS

    def validate(self) -> None:
        """Raise ValueError with a one-line reason for a configuration that cannot run."""
        get_task(self.task)
        if self.n < 1:
            raise ValueError(f"--n must be at least 1, got {self.n}")
        if self.k < 1:
            raise ValueError(f"--k must be at least 1, got {self.k}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {self.limit}")
        from pxp_tui.engine import ContextPolicy  # the engine is not imported before the app's first paint

        ContextPolicy.parse(self.context)
        if self.human_kind is HumanKind.LIVE and not (self.expert or "").strip():
            raise ValueError("the human's name is empty")
        if self.human_kind is not HumanKind.LIVE and self.expert is not None:
            raise ValueError(f"a {self.human_kind} human has no expert's name (got {self.expert!r})")
        if self.human_kind is HumanKind.MODEL and not (self.human_model or "").strip():
            raise ValueError("--human model: names no model (model:offline, model:gpt-4o-mini, ...)")
        if self.human_kind is not HumanKind.MODEL and (self.human_model, self.human_api_base) != (None, None):
            raise ValueError(f"a {self.human_kind} human has no model (got {self.human_model!r})")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"--top-k must be at least 1, got {self.top_k}")
        if self.contentiousness is not None and not 0 <= self.contentiousness <= 1:
            raise ValueError(f"--contentiousness lies in [0, 1], got {self.contentiousness}")
        if not 0 <= self.contentiousness_decay <= 1:
            raise ValueError(f"--contentiousness-decay lies in [0, 1], got {self.contentiousness_decay}")
        if self.stop not in evince.STOP_RULES:
            raise ValueError(f"--stop is one of {', '.join(evince.STOP_RULES)}, got {self.stop!r}")
        if self.final_weights not in evince.FINAL_WEIGHTS:
            raise ValueError(f"--final-weights is one of {', '.join(evince.FINAL_WEIGHTS)}, got {self.final_weights!r}")
        if self.evince_rule not in evince.EVINCE_RULES:
            raise ValueError(f"--evince-rule is one of {', '.join(evince.EVINCE_RULES)}, got {self.evince_rule!r}")
        if self.evince_mi not in evince.MI_MEASURES:
            raise ValueError(f"--evince-mi is one of {', '.join(evince.MI_MEASURES)}, got {self.evince_mi!r}")
        if not 0 <= self.stop_tolerance < 1:
            raise ValueError(f"--stop-tolerance lies in [0, 1), got {self.stop_tolerance}")
        if not 0 < self.smoothing <= 1:
            raise ValueError(f"--smoothing lies in (0, 1] (the raw measures are stored beside), got {self.smoothing}")
        if self.aggregation not in evince.AGGREGATIONS:
            raise ValueError(f"--aggregation is one of {', '.join(evince.AGGREGATIONS)}, got {self.aggregation!r}")
        if self.ground_metric is not None:
            if self.ground_metric not in GROUND_METRICS:
                raise ValueError(f"--ground-metric is one of {', '.join(GROUND_METRICS)}, got {self.ground_metric!r}")
            if self.ground_metric == "ordered" and get_task(self.task).label_order is None:
                raise ValueError(f"--ground-metric ordered: the {self.task} task's labels have no order")
        if self.stop != "pxp" and self.top_k is None:
            raise ValueError(f"--stop {self.stop} compares distributions: add --top-k")
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} is one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.rad_question != "disease" and self.task != "rad":
            raise ValueError(f"--rad-question {self.rad_question} is a RAD option, not one of the {self.task} task")
        if self.rad_unnamed != "ask-again" and self.task != "rad":
            raise ValueError(f"--rad-unnamed {self.rad_unnamed} is a RAD option, not one of the {self.task} task")
        if self.drug_match != SAME_SET and self.task != "drug":
            raise ValueError(f"--drug-match {self.drug_match} is a DRUG option, not one of the {self.task} task")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"--timeout must be more than 0 seconds, got {self.timeout}")
        if self.retries is not None and self.retries < 0:
            raise ValueError(f"--retries must be 0 or more, got {self.retries}")
        if self.max_reply is not None and self.max_reply < 1:
            raise ValueError(f"--max-reply must be at least 1 KB, got {self.max_reply}")

    def rules(self) -> list[str]:
        """The rules of reading and comparing answers that differ from the papers' defaults, as run settings show them
        (``MATCH any-in-common``): none for a run on the defaults."""
        shown = []
        if self.task == "drug" and self.drug_match != SAME_SET:
            shown.append(f"MATCH {self.drug_match}")
        if self.task == "rad" and self.rad_unnamed != "ask-again":
            shown.append(f"a reply naming no condition: {self.rad_unnamed}")
        return shown

    @property
    def checker_model(self) -> str:
        return self.checker or self.model

    def label_order(self) -> tuple[str, ...] | None:
        """The labels of the Wasserstein distance's ordered ground metric (None: the 0/1 metric), by
        ``--ground-metric`` or, unset, the task's own choice."""
        task = get_task(self.task)
        metric = self.ground_metric or task.ground_metric
        return task.label_order if metric == "ordered" else None


#: the Wasserstein distance's ground metrics: labels at positions 0, 1, ... in the task's order, or any two
#: labels 1 apart (the total variation)
GROUND_METRICS = ("ordered", "discrete")

#: the values a field of a few words may take (pxp run's choices)
CHOICES: dict[str, tuple[str, ...]] = {
    "learn_metric": ("match-and-agree", "match"),
    "learn_rule": ("improves", "does-not-drop"),
    "learn_first": ("measure", "keep"),
    "prompts": ("pxp", "paper", "reference"),
    "rad_question": ("disease", "yes-no"),
    "drug_match": MATCH_RULES,
    "rad_unnamed": ("ask-again", "wrong"),
}

#: every default, for the CLI's options and the start screen
DEFAULTS = RunConfig()


def parse_human(text: str) -> tuple[HumanKind, str | None]:
    """``pxp run --human``'s value as (kind, name): a kind that answers by itself (``proxy``); the live
    expert's name; ``live:NAME`` for any name (``live:proxy`` is an expert called "proxy"); or
    ``model:MODEL``, a second machine (a litellm model, or ``offline``), whose name is the model's."""
    text = text.strip()
    kind, colon, name = text.partition(":")
    if colon and kind == HumanKind.LIVE.value:
        return HumanKind.LIVE, name.strip()
    if colon and kind == HumanKind.MODEL.value:
        return HumanKind.MODEL, name.strip()
    for found in HumanKind:
        if text == found.value and not found.interactive and found is not HumanKind.MODEL:
            return found, None
    return HumanKind.LIVE, text
