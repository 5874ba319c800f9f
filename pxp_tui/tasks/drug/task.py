"""DRUG: single-step retrosynthesis of a small molecule (DESIGN.md section 3)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from pxp_tui.common.instance import Instance
from pxp_tui.engine import ParseError
from pxp_tui.tasks.base import DatasetRow, Task
from pxp_tui.tasks.distribution import ReadDistribution, drug_instruction, read_drug
from pxp_tui.tasks.drug import chem, dataset, drawer, limits, reader
from pxp_tui.tasks.drug.matching import FINGERPRINT, MATCH_RULES, SAME_SET
from pxp_tui.tasks.drug.prompt import instance_text
from pxp_tui.tasks.parsing import missing, sections
from pxp_tui.tasks.pictures import Drawing, Surface

SYSTEM_PROMPT = """You are a synthetic chemist. Always give molecules as SMILES strings.

Please perform a retrosynthetic analysis of the target molecule to outline a feasible single \
retrosynthetic step: the reactants (commercially available or easily synthesised starting materials) \
and the reaction that connects them to the target. Include considerations for regioselectivity, \
stereoselectivity and functional group compatibility as applicable, and give the reasoning behind \
the step, incorporating principles of organic chemistry and synthetic strategy.
Adhere to the format below and give no extra text:

Pathway: <the reactants' SMILES, separated by '.'>
Explanation: <the reaction and the reasoning>"""

_ALIASES = {
    "prediction": ["pathway", "prediction", "reactants", "starting materials", "precursors"],
    "explanation": ["explanation", "reasoning", "rationale"],
    "distribution": ["distribution"],  # EVINCE's distribution: ends the explanation; read by tasks.distribution
}


class DrugTask(Task):
    name = "drug"
    title = "DRUG: single-step retrosynthesis"
    prediction_label = "Pathway"
    explanation_noun = "retrosynthetic pathways"
    generation = {"max_tokens": 1024}  # the journal and the reference: the provider's temperature (docs/FIDELITY.md)
    match_rule = SAME_SET
    keyed_references = True  # distributions are over canonical reactant sets, as MATCH compares them
    # RDKit reads, draws and applies the offline baseline's templates in worker processes (``reader``, ``drawer``):
    # the app never imports it

    def system_prompt(self) -> str:
        return SYSTEM_PROMPT

    def variant(self, prompts: str = "pxp", rad_question: str = "disease", shots: Sequence[tuple[str, str, str]] = ()) -> Task:
        if prompts == "pxp":
            return self
        from pxp_tui.tasks.drug.variant import variant

        return variant(prompts, shots)

    def instance_content(self, instance: Instance, *, in_context: bool = False) -> str:
        return instance_text(instance.name, instance.input)

    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        found = sections(text, _ALIASES)
        if "prediction" not in found:
            raise missing("Pathway", text)
        explanation = found.get("explanation", "").strip()
        if not explanation:
            raise ParseError("no 'Explanation:' in the reply")
        too_large = chem.oversized(found["prediction"])
        if too_large:
            raise ParseError(f"the pathway holds {too_large}")
        target = instance.input if instance is not None else None
        reactants = chem.smiles_in(found["prediction"], exclude=target)
        if not reactants and target and chem.canonical_parts(found["prediction"]) == chem.canonical_parts(target):
            reactants = [found["prediction"].strip()]  # "no disconnection": the target itself
        if not reactants:
            raise ParseError(f"no valid SMILES in the pathway {limits.excerpt(found['prediction'], 60)}")
        return ".".join(reactants), explanation

    def normalise(self, prediction: str) -> str:
        """The sorted set of canonical SMILES: MATCH is the same set (not "any molecule in common")."""
        parts = chem.canonical_parts(prediction)
        return ".".join(parts) if parts is not None else "invalid:" + prediction.strip()

    def match(self, a: str, b: str) -> bool:
        """MATCH by the task's rule (:data:`MATCH_RULES`): by default the same set of canonical reactants."""
        if self.match_rule == SAME_SET:
            return super().match(a, b)
        return chem.in_common(a, b, fingerprint=self.match_rule == FINGERPRINT)

    def with_match(self, rule: str) -> DrugTask:
        """This task (its wording too) with MATCH by ``rule``: itself for its own rule, else a copy."""
        if rule not in MATCH_RULES:
            raise ValueError(f"--drug-match is one of {', '.join(MATCH_RULES)}, got {rule!r}")
        if rule == self.match_rule:
            return self
        other = copy.copy(self)
        other.match_rule = rule
        return other

    def validate_prediction(self, prediction: str) -> str | None:
        if not prediction.strip():
            return "give the reactants as SMILES, separated by '.'"
        return chem.refusal(prediction)

    def demo_rows(self) -> list[DatasetRow]:
        with as_file(files("pxp_tui.assets") / "demo" / "drug.csv") as path:
            return dataset.read(Path(path))

    def read_dataset(
        self, path: Path, *, images_dir: Path | None = None, encoding: str = "utf-8", progress: Any = None
    ) -> list[DatasetRow]:
        return dataset.read(path, encoding=encoding, progress=progress)

    def warm_up(self) -> None:
        reader.start()  # RDKit's worker processes (they import RDKit)
        drawer.start()

    def describe(self, instance: Instance) -> dict[str, str]:
        return {"name": instance.name, **chem.describe(instance.input)}

    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.drug.baseline import reply

        return reply(messages)

    def offline_second_answer(self, messages: list[dict[str, Any]]) -> str:
        from pxp_tui.tasks.drug.baseline import SECOND, reply

        return reply(messages, SECOND)

    def distribution_instruction(self, k: int) -> str | None:
        return drug_instruction(k)

    def read_distribution(self, text: str, prediction: str, instance: Instance | None, k: int) -> ReadDistribution | None:
        return read_drug(text, prediction, instance.input if instance is not None else None, k)

    def draw_instance(self, instance: Instance, surface: Surface | tuple[int, int]) -> Drawing:
        return drawer.molecule(instance.input, surface)

    def draw_prediction(self, instance: Instance, prediction: str, surface: Surface | tuple[int, int]) -> Drawing:
        return drawer.reaction(prediction, instance.input, surface)

    def original_picture(self, instance: Instance) -> bytes | None:
        return None  # molecules are drawn, at every size
