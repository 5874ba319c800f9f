"""DRUG as the papers and the reference scripts word it (``--prompts paper|reference``).

- ``paper``: the conference paper's Example 2 (prompt assembly for molecule synthesis), verbatim; the
  human's reply worded as Example 1 words it ("Both the ... are incorrect. Please correct both.").
- ``reference``: the reference scripts' prompt (src/tasks.py, DRUG.assemble_prompt): the oracle sentence ("the
  other agent (user) always provides correct retrosynthesis reactants"), the "do not generate" phrases, the
  few-shot examples (the dataset's ``shots`` split: ``pxp import drug ... --few-shot FILE``), the format
  ``Prediction: <SMILES>`` / ``Pathway: <the reasoning>``, and each message of the context worded by its tag.

The offline baseline answers through the same prompts: they are read back into pxp's wording first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, ParseError
from pxp_tui.protocol import Tag
from pxp_tui.tasks.base import HUMAN_REPLY
from pxp_tui.tasks.drug.prompt import instance_text
from pxp_tui.tasks.drug.task import DrugTask
from pxp_tui.tasks.parsing import missing, sections
from pxp_tui.tasks.wording import Reference, Worded, paper_tag, text_of, to_pxp, without_first_line

#: the conference paper's Example 2, its system part and its request (``{molecule}``: name and SMILES)
PAPER_SYSTEM = "You are a synthetic Chemist. Always give the IUPAC name and SMILES strings of molecules."
PAPER_ASK = """Please perform a retrosynthetic analysis of {molecule} to outline a feasible retrosynthetic pathway. \
This analysis should identify key intermediates and starting materials, along with the reactions that connect them, \
leading back to commercially available or easily synthesizable compounds. Include considerations for regioselectivity, \
stereoselectivity, and functional group compatibility as applicable. Where relevant, suggest alternative pathways that \
might offer advantages in terms of yield, simplicity, or environmental impact. Additionally, provide insight into the \
reasoning behind each step of the proposed pathway, incorporating principles of organic chemistry, synthetic strategy, \
and any relevant computational chemistry insights. If the molecule's complexity or the request's specificity exceeds \
your capabilities, guide the user on how to refine their inquiry or seek specialized computational tools for more \
detailed analysis. Adhere to the below format and provide no extra text:

Pathway: <pathway>

Explanation: <explanation>"""
#: the reference scripts' system prompt; ``{few_shot}``: the examples, each as the reference writes it
REFERENCE_SYSTEM = """You are a synthetic chemist with comprehensive knowledge of synthetic organic chemistry and established retrosynthetic procedures.
Your role is to analyze the target molecule and suggest viable a retrosynthetic pathway.
Additionally, provide insight into the reasoning behind the proposed pathway, incorporating principles of organic chemistry,
synthetic strategy, and any relevant computational chemistry insights.

You have to strictly adhere to the following format in your response, no extra text:
*Prediction: <SMILES of retrosynthesis input>*
*Pathway: <the retrosynthesis pathway described in text>*

If there are multiple input SMILES, separate them by a period '.'.

DO NOT GENERATE THESE PHRASES:
1. I made a mistake
2. You made a mistake
3. This conversation is ratified
and so on.
You are an agent taking part in a protocol which automatically adds these filler messages, you have to focus
the real task, i.e., retrosynthesis. In this protocol the other agent (user) always provides correct retrosynthesis
reactants (inputs).

A few examples of single-step retrosynthetic pathways are provided below:
{few_shot}"""
REFERENCE_SHOT = (
    "Generate a single-step retrosynthetic pathway for {target}.\n\n*Prediction: {reactants}*\n*Pathway: {explanation}*"
)
REFERENCE_ASK = "You have to predict a single step retrosynthetic pathway for {target}."

REFERENCE = Reference(
    "opinion", "opinions", "I think the retrosynthesis pathway is:", "This is the preliminary retrosynthesis pathway I propose:"
)
#: the labels of each wording: (the reactants', the explanation's)
LABELS = {"pxp": ("Pathway", "Explanation"), "paper": ("Pathway", "Explanation"), "reference": ("Prediction", "Pathway")}
_TARGET = {
    "paper": re.compile(r"retrosynthetic analysis of .*?\(SMILES: (?P<smiles>\S+)\) to outline"),
    "reference": re.compile(r"single step retrosynthetic pathway for (?P<smiles>\S+)\.\s*$"),
}


class DrugVariant(Worded, DrugTask):
    """DRUG with another wording; ``shots``: the reference's few-shot examples, (target, reactants, explanation)."""

    words = REFERENCE
    judged = "pathway"

    def __init__(self, prompts: str = "pxp", shots: Sequence[tuple[str, str, str]] = ()) -> None:
        self.prompts = prompts
        self.shots = tuple(shots)
        prediction, explanation = LABELS[prompts]
        self._aliases = {"prediction": [prediction.lower()], "explanation": [explanation.lower()]}

    def labels(self) -> tuple[str, str]:
        return LABELS[self.prompts]

    @property
    def offline_name(self) -> str:
        return f"drug+{self.prompts}+{len(self.shots)}"

    def system_prompt(self) -> str:
        if self.prompts == "paper":
            return PAPER_SYSTEM
        if self.prompts == "reference":
            shots = "\n\n".join(REFERENCE_SHOT.format(target=t, reactants=r, explanation=e) for t, r, e in self.shots)
            return REFERENCE_SYSTEM.format(few_shot=shots or "(none given)")
        return super().system_prompt()

    def instance_content(self, instance: Instance, *, in_context: bool = False) -> str:
        if self.prompts == "paper":
            molecule = f"{instance.name} (SMILES: {instance.input})" if instance.name else f"(SMILES: {instance.input})"
            return PAPER_ASK.format(molecule=molecule)
        if self.prompts == "reference":
            return REFERENCE_ASK.format(target=instance.input)
        return super().instance_content(instance, in_context=in_context)

    def answer_content(self, message: Message) -> str:
        if self.prompts == "reference":
            return REFERENCE.message(message, self._answer(message))
        return super().answer_content(message)

    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        if self.prompts != "reference":
            return super().parse(text, instance)
        found = sections(text, self._aliases)
        if "prediction" not in found:
            raise missing("Prediction", text)
        explanation = found.get("explanation", "").strip()
        if not explanation:
            raise ParseError("no 'Pathway:' in the reply")
        try:  # read as pxp reads its own labels: the same SMILES rules
            return super().parse(f"Pathway: {found['prediction']}\nExplanation: {explanation}", instance)
        except ParseError as exc:
            raise ParseError(str(exc).replace("pathway", "prediction")) from None

    # -- the offline baseline through these prompts ----------------------------------------------------
    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        if self.prompts == "pxp":
            return super().offline_answer(messages)
        messages = self.in_pxp_order(messages, self.offline_answer)
        found = sections(super().offline_answer(to_pxp(messages, self._to_pxp)), {"p": ["pathway"], "e": ["explanation"]})
        prediction, explanation = LABELS[self.prompts]
        return f"{prediction}: {found.get('p', '')}\n{explanation}: {found.get('e', '')}"

    def _to_pxp(self, message: dict[str, Any], index: int) -> dict[str, Any] | None:
        text = text_of(message.get("content"))
        target = _TARGET[self.prompts].search(text)
        if message["role"] == "user" and target:
            return {"role": "user", "content": instance_text("", target.group("smiles"))}
        if message["role"] == "assistant" and (REFERENCE.tag_of(text) is not None or text.startswith(REFERENCE.initial)):
            text = without_first_line(text)
        said = sections(text, self._aliases)
        answer = f"Pathway: {said.get('prediction', '')}\nExplanation: {said.get('explanation', '')}"
        if message["role"] == "assistant":
            return {"role": "assistant", "content": answer}
        found = HUMAN_REPLY.match(text)
        tag = Tag(found.group("tag")) if found else REFERENCE.tag_of(text) or paper_tag(text)
        return {"role": "user", "content": f"Human ({tag.value if tag else 'REFUTE'}).\n{answer}"}


class DrugReference(DrugVariant):
    """The reference's wording: the reactants are the "Prediction", the reasoning the "Pathway"."""

    prediction_label = "Prediction"


def variant(prompts: str, shots: Sequence[tuple[str, str, str]]) -> DrugVariant:
    return DrugReference(prompts, shots) if prompts == "reference" else DrugVariant(prompts, shots)
