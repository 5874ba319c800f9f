"""What each field of the start form means: one line shown under the form while the field has the focus, and the
full explanation in the help (``?`` or ``f1``); and the form's choice of instances."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pxp_tui.config import DEFAULTS


@dataclass(frozen=True)
class FieldHelp:
    label: str
    line: str  # at most :data:`LINE` characters with the label: it fits the form at 80 columns
    full: str


#: the longest help line, label included (the form is 74 columns wide inside at 80x24)
LINE = 72

#: by the id of the field's widget (without ``start-``)
FIELDS: dict[str, FieldHelp] = {
    "task": FieldHelp(
        "Task",
        "what you and the machine work on (a retrosynthesis, an X-ray)",
        "The task: what each instance is and what a prediction is (DRUG: reactants as SMILES for a product; "
        "RAD: the condition a chest X-ray shows).",
    ),
    "dataset": FieldHelp(
        "Dataset",
        "the bundled demo, or a dataset imported with pxp import",
        "Where the instances come from: the task's bundled demo, or a dataset imported into this blackboard "
        "with `pxp import` (listed with its number of instances).",
    ),
    "instances": FieldHelp(
        "Instances",
        "all, the first N (type N beside), or one split of the dataset",
        "Which instances the run goes through, in the dataset's order: all of them, the first N (type N in the "
        "field beside), or one split (train, val, test) of a dataset imported with splits. Each instance is "
        "one session; the session's header shows which one of how many.",
    ),
    "limit": FieldHelp(
        "N",
        "how many instances, from the first, with 'the first N'",
        "With 'the first N': how many instances the run takes, from the first (a whole number, 1 or more).",
    ),
    "model": FieldHelp(
        "Machine",
        "predicts and explains: offline, or a litellm model name",
        "The machine: the model that sends a prediction and an explanation and answers yours. `offline` is "
        "the built-in baseline (no key, no network); any litellm model name works (gpt-4o-mini, "
        "ollama/llava, ...), with its key in the environment.",
    ),
    "checker": FieldHelp(
        "Checker",
        "judges if two explanations agree (empty: the machine's model)",
        "The checker: the model that decides AGREE, whether two explanations say the same, for the protocol's "
        "tags and the intelligibility measures. Empty: the machine's own model (offline: a TF-IDF similarity).",
    ),
    "human": FieldHelp(
        "Human",
        "who answers in the human's seat: you, or the dataset's answers",
        "Who sits in the human's seat: you (a live expert, in this app), or the proxy, which answers with the "
        "dataset's reference answers (a run you watch). A second model: `pxp run --human model:...`.",
    ),
    "name": FieldHelp(
        "Your name",
        "stored with the run as the expert who answered",
        "Your name, stored with the run as the expert who answered (for the review, the exports, the metrics).",
    ),
    "n": FieldHelp(
        "n",
        "at most n messages per session (the machine's and yours)",
        "n: the message bound. A session ends when both agents ratify, one rejects, or after n messages "
        "(the machine's and yours counted together).",
    ),
    "k": FieldHelp(
        "k",
        "REJECT is allowed only after message k",
        "k: REJECT is allowed only after message k, so that each side has heard the other before ending the "
        "session without agreement.",
    ),
    "context": FieldHelp(
        "Context",
        "what the machine sees of earlier sessions: all, none, last 3",
        "Context: what the machine is shown of earlier sessions of the run when it answers. All of them (as the "
        "papers run it: the machine learns from the expert), none (each session on its own), or the last 3.",
    ),
    "learn-gate": FieldHelp(
        "Learn gate",
        "keep a session in context only if val accuracy holds",
        "Learn gate: after each session, the machine is measured on the dataset's val split with that session "
        "added to its context; the session is kept only if the accuracy does not drop. Needs a dataset "
        "imported with a val split.",
    ),
}

#: the line shown while no field has the focus
NO_FIELD = "tab moves through the fields · ? or f1 explains each of them"


def help_line(field: str | None) -> str:
    found = FIELDS.get(field or "")
    return f"{found.label}: {found.line}" if found else NO_FIELD


def explained() -> str:
    """Every field's full explanation, for the help screen."""
    return "\n".join(f"{f.label}: {f.full}" for f in FIELDS.values())


#: the value of the instances' choice for "the first N"
FIRST = "first"
ALL = "all"


def instance_choices(dataset: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The instances' choices for ``dataset`` (a row of ``Blackboard.datasets()``; None: the bundled demo)."""
    if dataset is None:
        return [("all", ALL), ("the first N", FIRST)]
    splits = {s: int(dataset.get(s) or 0) for s in ("train", "val", "test")}
    kept = [s for s, count in splits.items() if count]
    whole = splits[DEFAULTS.split] if splits[DEFAULTS.split] and len(kept) > 1 else int(dataset["instances"])
    name = f"all of {DEFAULTS.split} ({whole})" if len(kept) > 1 else f"all ({whole})"
    choices = [(name, ALL), ("the first N", FIRST)]
    if len(kept) > 1:
        choices += [(f"the {s} split ({splits[s]})", f"split:{s}") for s in kept if s != DEFAULTS.split]
    return choices


#: how a reason names each number of the form
NUMBERS = {
    "n": "n (messages per session at most)",
    "k": "k (REJECT allowed after message k)",
    "limit": "N (the first N instances)",
}


def whole_number(field: str, text: str) -> int:
    """``text``, typed into the number ``field`` (``n``, ``k``, ``limit``), as a whole number of 1 or more; ValueError
    with a one-line reason in the form's words (the command line's, ``--k must be at least 1``, name no field here)."""
    name = NUMBERS[field]
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {text.strip()!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be 1 or more, got {value}")
    return value


def instances(choice: str, limit: str) -> dict[str, Any]:
    """The instances' choice as ``RunConfig`` fields; ValueError with a one-line reason for a bad N."""
    if choice == FIRST:
        return {"limit": whole_number("limit", limit)}
    if choice.startswith("split:"):
        return {"split": choice.removeprefix("split:")}
    return {}
