"""RAD: chest X-ray diagnosis among five conditions, with a short radiology report (DESIGN.md section 3)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, ClassVar

from pxp_tui.common.instance import Instance
from pxp_tui.engine import ParseError
from pxp_tui.tasks.base import DatasetRow, Task
from pxp_tui.tasks.distribution import OTHER, ReadDistribution, rad_instruction, read_rad
from pxp_tui.tasks.grey_levels import spacing_text
from pxp_tui.tasks.parsing import missing, sections
from pxp_tui.tasks.pictures import Drawing, Surface
from pxp_tui.tasks.rad import dataset, images
from pxp_tui.tasks.rad.labels import LABELS, label_of

#: after the papers' Example 1 (prompt assembly for X-ray diagnosis), with one of five conditions
SYSTEM_PROMPT = f"""You are a radiology expert, with detailed knowledge of {", ".join(LABELS)}.
You are shown a chest X-ray. Diagnose the one condition among these five that it shows, and write a \
short radiology report (the findings that support it, a few sentences).
Adhere to the following output format strictly, no extra text:

Prediction: <one of: {", ".join(LABELS)}>
Explanation: <the report>"""

#: what a reply whose prediction names none of the five conditions gets (``--rad-unnamed``; docs/FIDELITY.md, row
#: rad-unnamed): asked again (pxp, as any unreadable reply), or kept as written and scored wrong by MATCH (the
#: reference scripts: their parser takes any text after "Prediction:", and their MATCH finds no condition in it)
ASK_AGAIN, WRONG = "ask-again", "wrong"
UNNAMED = (ASK_AGAIN, WRONG)
#: characters of an unnamed prediction kept
UNNAMED_KEPT = 200

_ALIASES = {
    "prediction": ["prediction", "diagnosis", "condition", "impression"],
    "explanation": ["explanation", "report", "findings", "reasoning"],
    "distribution": ["distribution"],  # EVINCE's distribution: ends the explanation; read by tasks.distribution
}


class RadTask(Task):
    name = "rad"
    title = "RAD: chest X-ray diagnosis"
    prediction_label = "Prediction"
    prediction_choices: ClassVar[tuple[str, ...]] = LABELS
    explanation_noun = "radiology reports"
    generation = {"max_tokens": 300}  # the papers' setting for RAD
    #: the order of labels.py, then OTHER (a condition outside the five), for --ground-metric ordered; the
    #: conditions have no natural order, so the task's own ground metric is 0/1
    label_order = (*LABELS, OTHER)
    ground_metric = "discrete"
    unnamed = ASK_AGAIN

    def system_prompt(self) -> str:
        return SYSTEM_PROMPT

    def variant(self, prompts: str = "pxp", rad_question: str = "disease", shots: Sequence[tuple[str, str, str]] = ()) -> Task:
        if (prompts, rad_question) == ("pxp", "disease"):
            return self
        from pxp_tui.tasks.rad.variant import variant

        return variant(prompts, rad_question)

    def instance_content(self, instance: Instance, *, in_context: bool = False) -> list[dict[str, Any]]:
        """The case's text and its image as a data URL: shrunk for this session, a thumbnail in the context."""
        if instance.image is None:
            raise ValueError(f"RAD instance {instance.key} has no image")
        side = images.THUMBNAIL_SIDE if in_context else images.PROMPT_SIDE
        image: dict[str, Any] = {"url": images.data_url(instance.image, side)}
        if in_context:
            image["detail"] = "low"
        text = (
            f"Chest X-ray, case {instance.key}."
            if in_context
            else f"Chest X-ray, case {instance.key}. Which condition does it show?"
        )
        return [{"type": "text", "text": text}, {"type": "image_url", "image_url": image}]

    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        found = sections(text, _ALIASES)
        if "prediction" not in found:
            raise missing("Prediction", text)
        label = label_of(found["prediction"])
        explanation = found.get("explanation", "").strip()
        if label is None and self.unnamed == WRONG and found["prediction"].strip() and explanation:
            return found["prediction"].strip()[:UNNAMED_KEPT], explanation  # MATCH finds no condition: wrong
        if label is None:
            raise ParseError(f"the prediction {found['prediction'][:60]!r} names none of {', '.join(LABELS)}")
        if not explanation:
            raise ParseError("no 'Explanation:' in the reply")
        return label, explanation

    def with_unnamed(self, rule: str) -> RadTask:
        """This task (its wording too) with a reply naming no condition treated by ``rule`` (:data:`UNNAMED`)."""
        if rule not in UNNAMED:
            raise ValueError(f"--rad-unnamed is one of {', '.join(UNNAMED)}, got {rule!r}")
        if rule == self.unnamed:
            return self
        other = copy.copy(self)
        other.unnamed = rule
        return other

    def normalise(self, prediction: str) -> str:
        return label_of(prediction) or "unknown:" + prediction.strip().lower()

    def validate_prediction(self, prediction: str) -> str | None:
        if label_of(prediction) is None:
            return f"name one of: {', '.join(LABELS)}"
        return None

    def demo_rows(self) -> list[DatasetRow]:
        with as_file(files("pxp_tui.assets") / "demo" / "rad.csv") as path:
            return dataset.read(Path(path))

    def read_dataset(
        self, path: Path, *, images_dir: Path | None = None, encoding: str = "utf-8", progress: Any = None
    ) -> list[DatasetRow]:
        return dataset.read(path, images_dir, encoding=encoding, progress=progress)

    def draw_instance(self, instance: Instance, surface: Surface | tuple[int, int]) -> Drawing:
        """The X-ray as stored; one of more than 8 bits a pixel (a DICOM instance) in its default window."""
        return images.shown(instance.image)

    def describe(self, instance: Instance) -> dict[str, str]:
        meta = instance.meta
        info = {"name": instance.name, "split": instance.split}
        if meta.get("width") and meta.get("format") == "DICOM":
            info["image"] = f"{meta['width']}x{meta['height']} DICOM {meta.get('bits')}-bit {meta.get('photometric', '')}".strip()
            if meta.get("spacing"):
                row, column = meta["spacing"]
                info["pixel"] = spacing_text((float(row), float(column)))
        elif meta.get("width"):
            info["image"] = f"{meta['width']}x{meta['height']} {instance.image_mime.split('/')[-1].upper()}"
        if meta.get("link"):
            info["source"] = str(meta["link"])
        return info

    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.rad.baseline import answer

        return answer(messages)

    def offline_second_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.rad.baseline import SECOND, answer

        return answer(messages, SECOND)

    def distribution_instruction(self, k: int) -> str | None:
        return rad_instruction(min(k, len(LABELS)))

    def read_distribution(self, text: str, prediction: str, instance: Instance | None, k: int) -> ReadDistribution | None:
        return read_rad(text, prediction, min(k, len(LABELS)))
