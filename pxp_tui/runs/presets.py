"""The papers' settings as named presets (``pxp run --preset NAME``): every value cites its row of docs/FIDELITY.md.

A preset fills what the researcher leaves out; any option given on the command line wins. The run records
the preset's name, which of its values were overridden, and every effective value (:func:`apply`). Importing
this module imports nothing heavy: ``pxp run`` builds its parser from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


#: the models of the papers, as litellm names them
GPT_4O_MINI, GPT_4O = "gpt-4o-mini", "gpt-4o"
CLAUDE_3_OPUS, CLAUDE_35_SONNET = "anthropic/claude-3-opus-20240229", "anthropic/claude-3-5-sonnet-latest"

#: preset -> field of RunConfig (or ``repeat``, the runs of the experiment) -> value and its row
PRESETS: dict[str, dict[str, Setting]] = {
    "conference-rad": _common(
        task=Setting("rad", "task-rad"),
        dataset=Setting("interact-rad-20", "dataset-rad"),
        rad_question=Setting("yes-no", "rad-prediction"),
        prompts=Setting("paper", "prompts"),
        model=Setting(GPT_4O_MINI, "models"),
        temperature=Setting(1.0, "temperature"),
        max_tokens=Setting(300, "max-tokens"),
        checker=Setting(GPT_4O, "models"),
        repeat=Setting(5, "repetitions"),
        learn_gate=Setting(False, "learn-gate"),
        evaluate=Setting(False, "machine-performance"),
    ),
    "conference-drug": _common(
        task=Setting("drug", "task-drug"),
        dataset=Setting("interact-drug", "dataset-drug"),
        prompts=Setting("paper", "prompts"),
        model=Setting(CLAUDE_3_OPUS, "models"),
        temperature=Setting(0.3, "temperature"),
        max_tokens=Setting(1024, "max-tokens"),
        checker=Setting(CLAUDE_3_OPUS, "models"),
        repeat=Setting(1, "repetitions"),
        learn_gate=Setting(False, "learn-gate"),
        evaluate=Setting(False, "machine-performance"),
    ),
    "journal-rad": _common(
        task=Setting("rad", "task-rad"),
        dataset=Setting("interact-rad", "dataset-rad"),
        rad_question=Setting("disease", "rad-prediction"),
        prompts=Setting("reference", "prompts"),
        model=Setting(CLAUDE_35_SONNET, "models"),
        temperature=Setting(None, "temperature"),
        max_tokens=Setting(300, "max-tokens"),
        checker=Setting(CLAUDE_35_SONNET, "models"),
        repeat=Setting(5, "repetitions"),
        learn_gate=Setting(True, "learn-gate"),
        learn_metric=Setting("match-and-agree", "learn-metric"),
        learn_rule=Setting("improves", "learn-rule"),
        learn_first=Setting("measure", "learn-first"),
        evaluate=Setting(False, "machine-performance"),
    ),
    "journal-drug": _common(
        task=Setting("drug", "task-drug"),
        dataset=Setting("interact-drug", "dataset-drug"),
        prompts=Setting("reference", "prompts"),
        model=Setting(CLAUDE_35_SONNET, "models"),
        temperature=Setting(None, "temperature"),
        max_tokens=Setting(1024, "max-tokens"),
        checker=Setting(CLAUDE_35_SONNET, "models"),
        repeat=Setting(5, "repetitions"),
        learn_gate=Setting(True, "learn-gate"),
        learn_metric=Setting("match-and-agree", "learn-metric"),
        learn_rule=Setting("improves", "learn-rule"),
        learn_first=Setting("measure", "learn-first"),
        evaluate=Setting(True, "machine-performance"),
    ),
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
    overridden = sorted(f for f in given if f in preset and given[f] != preset[f])
    return values, overridden


def describe(name: str) -> str:
    """One line per value of preset ``name``: the field, the value, the row of docs/FIDELITY.md."""
    return "\n".join(f"{field} = {s.value!r}  (docs/FIDELITY.md#{s.row})" for field, s in PRESETS[name].items())
