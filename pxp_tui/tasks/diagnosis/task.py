"""DIAGNOSIS: a diagnosis from a case's free-text description, among the labels of its dataset.

The setting of the EVINCE paper's experiments (paper 003, section 4: symptoms to one of the dataset's
diseases, top-k distributions), on any labelled CSV (:mod:`pxp_tui.tasks.diagnosis.dataset`). Each case
carries its dataset's labels; the prompt offers them (the paper's "constrained prediction"), and a
diagnosis outside them is kept as written, never dropped: it simply matches no label. The bundled demo
is 24 invented cases over six common conditions, written for this project.
"""

from __future__ import annotations

import textwrap
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from pxp_tui.common.instance import Instance
from pxp_tui.engine import ParseError
from pxp_tui.tasks.base import DatasetRow, Task
from pxp_tui.tasks.diagnosis import dataset
from pxp_tui.tasks.diagnosis.dataset import canonical
from pxp_tui.tasks.distribution import HEADING, MAX_LABEL, ReadDistribution, read_labelled
from pxp_tui.tasks.parsing import missing, sections
from pxp_tui.tasks.pictures import CellPicture, Drawing, Surface

SYSTEM_PROMPT = """You are a physician. You are given a patient's case description and the candidate \
diagnoses. Diagnose the one candidate the case most likely has, and explain why: the findings that \
support it and those that argue against the alternatives, in a few sentences.
Adhere to the following output format strictly, no extra text:

Diagnosis: <one of the candidate diagnoses>
Explanation: <your reasons>"""

#: the bundled demo's file under ``pxp_tui/assets/demo``
DEMO = "diagnosis.csv"

_ALIASES = {
    "prediction": ["diagnosis", "prediction", "condition", "disease"],
    "explanation": ["explanation", "reasons", "reasoning", "justification", "rationale"],
    "distribution": ["distribution"],  # ends the explanation; read by tasks.distribution
}


def labels_of(instance: Instance | None) -> tuple[str, ...]:
    """The candidate diagnoses of ``instance``'s dataset (stored with it at import)."""
    found = instance.meta.get("labels") if instance is not None else None
    return tuple(str(x) for x in found) if isinstance(found, (list, tuple)) else ()


def label_in(text: str, labels: tuple[str, ...]) -> str | None:
    """The candidate ``text`` names: exactly (case and spacing aside), else the longest one it contains."""
    wanted = canonical(text.strip(" .:*_`\"'"))
    by_name = {canonical(label): label for label in labels}
    if wanted in by_name:
        return by_name[wanted]
    padded = f" {' '.join(''.join(c if c.isalnum() else ' ' for c in wanted).split())} "
    inside = [
        label
        for name, label in by_name.items()
        if f" {' '.join(''.join(c if c.isalnum() else ' ' for c in name).split())} " in padded
    ]
    return max(inside, key=len) if inside else None


def kept_name(text: str) -> str | None:
    """A diagnosis outside the candidates as it is kept: its words, at most :data:`MAX_LABEL` characters."""
    name = " ".join(text.split())[:MAX_LABEL].strip(" .:;,")
    return name or None


class DiagnosisTask(Task):
    name = "diagnosis"
    title = "DIAGNOSIS: a diagnosis from a case description"
    prediction_label = "Diagnosis"
    explanation_noun = "diagnostic explanations"
    generation = {"max_tokens": 500}

    def system_prompt(self) -> str:
        return SYSTEM_PROMPT

    def instance_content(self, instance: Instance, *, in_context: bool = False) -> str:
        """The case (``Case <key>: <description>``) and its candidate diagnoses."""
        return f"Case {instance.key}: {instance.input}\nCandidate diagnoses: {', '.join(labels_of(instance))}"

    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        found = sections(text, _ALIASES)
        if "prediction" not in found:
            raise missing("Diagnosis", text)
        said = found["prediction"].strip().split("\n")[0]
        label = label_in(said, labels_of(instance)) or kept_name(said)
        if not label:
            raise ParseError("the diagnosis is empty")
        explanation = found.get("explanation", "").strip()
        if not explanation:
            raise ParseError("no 'Explanation:' in the reply")
        return label, explanation

    def normalise(self, prediction: str) -> str:
        return canonical(prediction)

    def validate_prediction(self, prediction: str) -> str | None:
        return None if prediction.strip() else "name a diagnosis"

    def read_dataset(
        self, path: Path, *, images_dir: Path | None = None, encoding: str = "utf-8", progress: Any = None
    ) -> list[DatasetRow]:
        return dataset.read(path, encoding=encoding, progress=progress)

    def demo_rows(self) -> list[DatasetRow]:
        """The bundled demo: 24 invented cases (``pxp_tui/assets/demo/diagnosis.csv``, see DIAGNOSIS.md there)."""
        with as_file(files("pxp_tui.assets") / "demo" / DEMO) as path:
            return self.read_dataset(Path(path))

    def describe(self, instance: Instance) -> dict[str, str]:
        return {"name": instance.name, "split": instance.split, "candidates": str(len(labels_of(instance)))}

    def distribution_instruction(self, k: int) -> str | None:
        listing = ", ".join("<diagnosis>: <p>" for _ in range(min(k, 3)))
        return (
            f"After the explanation, add one line giving your probabilities for the {k} most likely candidate "
            f"diagnoses (any other is taken as 0), between 0 and 1 and summing to 1, your diagnosis the most "
            f"probable:\n{HEADING}: {listing}{', ...' if k > 3 else ''}"
        )

    def read_distribution(self, text: str, prediction: str, instance: Instance | None, k: int) -> ReadDistribution | None:
        labels = labels_of(instance)
        return read_labelled(text, labels, lambda written: label_in(written, labels), k, kept_name)

    def draw_instance(self, instance: Instance, surface: Surface | tuple[int, int]) -> Drawing:
        """The description itself, wrapped to the surface: the case is text."""
        width = max(20, Surface.of(surface).cols)
        lines = textwrap.wrap(instance.input, width) or [""]
        lines += ["", *textwrap.wrap("Candidates: " + ", ".join(labels_of(instance)), width)]
        return CellPicture(tuple(((line, ""),) for line in lines))

    def original_picture(self, instance: Instance) -> bytes | None:
        return None

    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.diagnosis.baseline import FIRST, answer

        return answer(messages, FIRST)

    def offline_second_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.diagnosis.baseline import SECOND, answer

        return answer(messages, SECOND)
