"""The papers' settings as named presets (``pxp run --preset NAME``): every value cites its row of docs/FIDELITY.md.

A preset fills what the researcher leaves out; any option given on the command line wins. The run records
the preset's name, which of its values were overridden, and every effective value (:func:`apply`). Importing
this module imports nothing heavy: ``pxp run`` builds its parser from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pxp_tui.common.kinds import HumanKind
from pxp_tui.common.models import OFFLINE


@dataclass(frozen=True)
class Setting:
    """One value of a preset and the id of the docs/FIDELITY.md row that says where it comes from."""

    value: Any
    row: str


def _common(**values: Setting) -> dict[str, Setting]:
    """What every preset shares: the message bound, REJECT's k, the carried context, the checker's settings."""
    return {
        "n": Setting(10, "n"),
        "k": Setting(3, "k"),
        "context": Setting("all", "context"),
        "split": Setting("train", "sessions"),
        "checker_temperature": Setting(0.0, "checker-settings"),
        "checker_max_tokens": Setting(10, "checker-settings"),
        **values,
    }


#: the models of the papers, as litellm names them; the reference's README starts the journal's live-expert DRUG runs
#: (DRUG-h1, DRUG-h2) with ``--machine="claude-3-sonnet-20240229"``, which litellm reads as it is
GPT_4O_MINI, GPT_4O = "gpt-4o-mini", "gpt-4o"
CLAUDE_3_OPUS, CLAUDE_35_SONNET = "anthropic/claude-3-opus-20240229", "anthropic/claude-3-5-sonnet-latest"
CLAUDE_3_SONNET_README = "claude-3-sonnet-20240229"


def _seat(kind: HumanKind, expert: str | None = None) -> dict[str, Setting]:
    """Who answers in the human's seat: the proxy (controlled experiments), or a live expert (``expert``: the name
    the run records unless ``--human`` gives another; None: ``--human NAME`` is needed)."""
    return {"human_kind": Setting(kind, "human-seat"), "expert": Setting(expert, "human-seat")}


def _paper(
    task: str, dataset: str, model: str, checker: str, temperature: float | None, repeat: int, **values: Setting
) -> dict[str, Setting]:
    """A preset: the task, its data, the models (the machine's temperature; the task's max tokens), the runs."""
    return _common(
        task=Setting(task, f"task-{task}"),
        dataset=Setting(dataset, f"dataset-{task}"),
        model=Setting(model, "models"),
        checker=Setting(checker, "models"),
        temperature=Setting(temperature, "temperature"),
        max_tokens=Setting({"rad": 300, "drug": 1024}[task], "max-tokens"),
        repeat=Setting(repeat, "repetitions"),
        **values,
    )


#: the conference paper's experiments: its Examples' wording, no validation set
CONFERENCE = {"prompts": Setting("paper", "prompts"), "learn_gate": Setting(False, "learn-gate"),
              "evaluate": Setting(False, "machine-performance")}  # fmt: skip
#: the journal's uncontrolled experiments (DRUG-h1, DRUG-h2): a live chemist, no validation set (the reference's
#: README: ``--no_learn``), the test split measured as the reference measures it
UNCONTROLLED = {
    "prompts": Setting("reference", "prompts"),
    "learn_gate": Setting(False, "learn-gate"),
    "evaluate": Setting(True, "machine-performance"),
}
#: the journal's controlled experiments: the reference's wording, the LEARN gate on a validation set
JOURNAL = {
    "prompts": Setting("reference", "prompts"),
    "learn_gate": Setting(True, "learn-gate"),
    "learn_metric": Setting("match-and-agree", "learn-metric"),
    "learn_rule": Setting("improves", "learn-rule"),
    "learn_first": Setting("measure", "learn-first"),
}

#: preset -> field of RunConfig (or ``repeat``, the runs of the experiment) -> value and its row
PRESETS: dict[str, dict[str, Setting]] = {
    "conference-rad": _paper(
        "rad", "interact-rad-20", GPT_4O_MINI, GPT_4O, 1.0, 5, **CONFERENCE, rad_question=Setting("yes-no", "rad-prediction")
    ),
    # the conference's DRUG had a chemist in the human's seat; its proxy variant is no experiment of the paper
    "conference-drug": _paper(
        "drug", "interact-drug", CLAUDE_3_OPUS, CLAUDE_3_OPUS, 0.3, 1, **CONFERENCE, **_seat(HumanKind.LIVE)
    ),
    "conference-drug-proxy": _paper(
        "drug", "interact-drug", CLAUDE_3_OPUS, CLAUDE_3_OPUS, 0.3, 1, **CONFERENCE, **_seat(HumanKind.PROXY)
    ),
    # the reference's RAD data has no test split: no machine-performance measurement. Its sessions are the
    # reference's training file (20 cases, 6/6/5/2/1), not the journal's "4 per disease", since its LEARN gate
    # needs the validation file: docs/FIDELITY.md, row dataset-rad
    "journal-rad": _paper(
        "rad",
        "interact-rad",
        CLAUDE_35_SONNET,
        CLAUDE_35_SONNET,
        None,
        5,
        **JOURNAL,
        rad_question=Setting("disease", "rad-prediction"),
        evaluate=Setting(False, "machine-performance"),
    ),
    "journal-drug": _paper(
        "drug",
        "interact-drug",
        CLAUDE_35_SONNET,
        CLAUDE_35_SONNET,
        None,
        5,
        **JOURNAL,
        evaluate=Setting(True, "machine-performance"),
    ),
    # the uncontrolled experiments: one chemist each, one run each, as the reference's README starts them
    **{
        f"journal-drug-h{number}": _paper(
            "drug",
            "interact-drug",
            CLAUDE_3_SONNET_README,
            CLAUDE_3_SONNET_README,
            None,
            1,
            **UNCONTROLLED,
            **_seat(HumanKind.LIVE, f"DRUG-h{number}"),
        )
        for number in (1, 2)
    },
}

#: how each preset's data is imported (the dataset names above), from the folder of the reference's data
IMPORTS: dict[str, tuple[str, ...]] = {
    "interact-rad": (
        "pxp import rad DATA/train_xray_data.csv --name interact-rad --split train",
        "pxp import rad DATA/val_xray_data.csv --name interact-rad --split val --append",
    ),
    "interact-rad-20": ("pxp import rad DATA/train_xray_data.csv DATA/val_xray_data.csv --name interact-rad-20 --per-label 4",),
    "interact-drug": ("pxp import drug DATA/retro.csv --name interact-drug --reference-split --few-shot DATA/few_shot_DRUG.csv",),
}


def names() -> list[str]:
    return list(PRESETS)


def apply(name: str, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The values of preset ``name`` under the options ``given`` (field -> value), and which of the preset's values
    those options replaced. ``--model offline`` without ``--checker`` makes the checker offline too: the offline
    baseline needs no network, and a paid checker beside it is never what a dry run means."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    preset = {field: setting.value for field, setting in PRESETS[name].items()}
    values = {**preset, **given, "preset": name}
    if given.get("model") == OFFLINE and "checker" not in given:
        values["checker"] = None  # the machine's: offline
    if values.get("human_kind") is HumanKind.LIVE and not values.get("expert"):
        raise ValueError(
            f"preset {name} has a live expert in the human's seat, as the paper had: name them with --human NAME"
            + (f" (or run {name}-proxy, the proxy in their seat)" if f"{name}-proxy" in PRESETS else "")
        )
    overridden = sorted(f for f in given if f in preset and given[f] != preset[f])
    return values, overridden


def describe(name: str) -> str:
    """One line per value of preset ``name``: the field, the value, the row of docs/FIDELITY.md."""
    return "\n".join(
        f"{field} = {str(s.value) if isinstance(s.value, HumanKind) else repr(s.value)}  (docs/FIDELITY.md#{s.row})"
        for field, s in PRESETS[name].items()
    )
