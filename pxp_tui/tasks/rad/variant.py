"""RAD as the papers and the reference scripts word it (``--prompts paper|reference``), and the conference paper's
Yes/No question (``--rad-question yes-no``: is the case's own disease present?).

The Yes/No question is Example 1 of the conference paper and the reference scripts of that time: the machine is
asked about the disease the case is labelled with, and the proxy's answer is "Yes" with the case's report (every
case shows its disease). The offline baseline answers through the same prompts: the prompt is read back into
pxp's wording (:mod:`pxp_tui.tasks.wording`), the baseline names a disease, and a Yes/No answer says whether that
disease is the one asked about.
"""

from __future__ import annotations

import re
from typing import Any

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, ParseError
from pxp_tui.protocol import Tag
from pxp_tui.tasks.base import HUMAN_REPLY
from pxp_tui.tasks.parsing import missing, sections
from pxp_tui.tasks.rad.labels import LABELS, label_of
from pxp_tui.tasks.rad.task import RadTask
from pxp_tui.tasks.wording import Reference, Worded, paper_tag, text_of, to_pxp, with_text, without_first_line

CONDITIONS = ", ".join(LABELS)

#: the conference paper's Example 1 (prompt assembly for X-ray diagnosis), its Yes/No format; and the same
#: wording asking for one of the five
PAPER_SYSTEM = (
    f"You are a radiology expert, with detailed knowledge of {CONDITIONS}. Adhere to the following output format "
    "strictly, no extra text\n\nPrediction: {answer}\nExplanation: <explanation>"
)
#: the reference scripts' system prompt (src/tasks.py, RAD.assemble_prompt), naming one of the five
REFERENCE_SYSTEM = f"""You are a helpful radiology expert, with detailed knowledge of {CONDITIONS}.
1. Carefully analyze the provided chest X-ray image
2. Make a precise diagnosis for the specified condition
3. Provide a clear, evidence-based explanation for your prediction

You have to strictly adhere to the following format in your response, no extra text:
*Prediction: <ailment>*
*Explanation: <Your explanation here>*

DO NOT GENERATE THESE PHRASES:
- I made a mistake
- You made a mistake
- This conversation is ratified
You are an agent taking part in a protocol which automatically adds these filler messages, you have to focus
the real task, i.e., radiology diagnosis. In this protocol the other agent (user) always provides correct
diagnosis/prediction."""
#: the reference scripts of the conference paper's time: the Yes/No question and the oracle sentence
REFERENCE_SYSTEM_YES_NO = f"""You are a radiology expert, with detailed knowledge of {CONDITIONS}.
It is also known that the user has access to an oracle with 100% prediction accuracy, so you can trust their predictions.
Adhere to the following output format strictly, no extra text:
*Prediction: Yes/No*
*Explanation: <Your explanation here>*"""
#: the request of both (the papers show none of their own)
ASK_ONE = f"Given the following chest XRay, you have to predict the presence of one of the ailments:\n{CONDITIONS}."
ASK_YES_NO = "Given the following chest XRay, you have to predict the presence of {disease}."
PXP_YES_NO = "Chest X-ray, case {key}. Does it show {disease}? Answer Yes or No."

REFERENCE = Reference("diagnosis", "diagnoses", "My diagnosis of this XRay is:", "This is my initial diagnosis of the X-Ray:")
_ASKED = re.compile(r"(?:predict the presence of|Does it show) (?P<disease>[^.?\n]+)[.?]")
_CASE = re.compile(r"^Chest X-ray, case (?P<key>.*?)\.")
_ALIASES = {"prediction": ["prediction", "diagnosis"], "explanation": ["explanation", "report"]}
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.I)


class RadVariant(Worded, RadTask):
    """RAD with another wording (``prompts``) or the Yes/No question (``question``)."""

    words = REFERENCE
    judged = "diagnosis"

    def __init__(self, prompts: str = "pxp", question: str = "disease") -> None:
        self.prompts = prompts
        self.question = question
        self.yes_no = question == "yes-no"

    @property
    def offline_name(self) -> str:
        return f"rad+{self.prompts}+{self.question}"

    # -- the prompt ---------------------------------------------------------------------------------
    def system_prompt(self) -> str:
        if self.prompts == "paper":
            return PAPER_SYSTEM.format(answer="Yes/No" if self.yes_no else f"<one of: {CONDITIONS}>")
        if self.prompts == "reference":
            return REFERENCE_SYSTEM_YES_NO if self.yes_no else REFERENCE_SYSTEM
        if self.yes_no:
            return (
                super()
                .system_prompt()
                .replace(f"<one of: {CONDITIONS}>", "Yes or No")
                .replace(
                    "Diagnose the one condition among these five that it shows", "Say whether it shows the condition asked about"
                )
            )
        return super().system_prompt()

    def instance_content(self, instance: Instance, *, in_context: bool = False) -> list[dict[str, Any]]:
        parts = super().instance_content(instance, in_context=in_context)
        disease = label_of(instance.reference_prediction) or instance.reference_prediction
        if self.prompts == "pxp":
            text = PXP_YES_NO.format(key=instance.key, disease=disease) if self.yes_no else text_of(parts)
        else:
            text = ASK_YES_NO.format(disease=disease) if self.yes_no else ASK_ONE
        found: list[dict[str, Any]] = with_text(parts, text)
        return found

    def answer_content(self, message: Message) -> str:
        if self.prompts == "reference":
            return REFERENCE.message(message, self._answer(message))
        return super().answer_content(message) if self.prompts == "pxp" else self._answer(message)

    # -- answers -------------------------------------------------------------------------------------
    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        if not self.yes_no:
            return super().parse(text, instance)
        found = sections(text, _ALIASES)
        if "prediction" not in found:
            raise missing("Prediction", text)
        word = _YES_NO.match(found["prediction"])
        if word is None:
            raise ParseError(f"the prediction {found['prediction'][:60]!r} is neither Yes nor No")
        explanation = found.get("explanation", "").strip()
        if not explanation:
            raise ParseError("no 'Explanation:' in the reply")
        return word.group(1).capitalize(), explanation

    def normalise(self, prediction: str) -> str:
        if not self.yes_no:
            return super().normalise(prediction)
        word = _YES_NO.match(prediction)
        return word.group(1).lower() if word else "unknown:" + prediction.strip().lower()

    def validate_prediction(self, prediction: str) -> str | None:
        if not self.yes_no:
            return super().validate_prediction(prediction)
        return None if _YES_NO.match(prediction) else "answer Yes or No"

    def reference(self, instance: Instance) -> tuple[str, str]:
        """The proxy's answer: with the Yes/No question, "Yes" (the case shows the disease it is labelled with)."""
        if self.yes_no:
            return "Yes", instance.reference_explanation
        return super().reference(instance)

    # -- the offline baseline through these prompts ----------------------------------------------------
    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        return self._offline(messages, super().offline_answer)

    def offline_second_answer(self, messages: list[dict[str, Any]]) -> str:
        return self._offline(messages, super().offline_second_answer)

    def _offline(self, messages: list[dict[str, Any]], base: Any) -> str:
        asked: list[str] = []
        messages = self.in_pxp_order(messages, lambda request: self._offline(request, base))
        pxp = to_pxp(messages, lambda message, index: self._to_pxp(message, asked))
        found = sections(base(pxp), _ALIASES)
        prediction, explanation = found.get("prediction", ""), found.get("explanation", "")
        if self.yes_no:
            prediction = "Yes" if asked and label_of(prediction) == label_of(asked[-1]) else "No"
        if self.prompts == "reference":
            return f"*Prediction: {prediction}*\n*Explanation: {explanation}*"
        return f"Prediction: {prediction}\nExplanation: {explanation}"

    def _to_pxp(self, message: dict[str, Any], asked: list[str]) -> dict[str, Any]:
        content = message.get("content")
        text = text_of(content)
        has_image = not isinstance(content, str) and any(p.get("type") == "image_url" for p in content or ())
        if message["role"] == "user" and has_image:  # a case
            disease = _ASKED.search(text)
            asked.append(disease.group("disease").strip() if disease else "")
            key = _CASE.match(text)
            return {**message, "content": with_text(content, f"Chest X-ray, case {key.group('key') if key else len(asked)}.")}
        if message["role"] == "assistant":
            if REFERENCE.tag_of(text) is not None or text.startswith(REFERENCE.initial):
                text = without_first_line(text)
            said = sections(text, _ALIASES)
            return {**message, "content": self._labelled(said, asked, "")}
        tag = _tag_of(text)
        said = sections(text, _ALIASES)
        return {**message, "content": self._labelled(said, asked, f"Human ({tag.value}).\n" if tag else "")}

    def _labelled(self, said: dict[str, str], asked: list[str], head: str) -> str:
        prediction = said.get("prediction", "")
        if self.yes_no:
            word = _YES_NO.match(prediction)
            prediction = asked[-1] if asked and word and word.group(1).lower() == "yes" else ""
        return f"{head}Prediction: {prediction}\nExplanation: {said.get('explanation', '')}"


class RadYesNo(RadVariant):
    """The Yes/No question: the expert picks Yes or No."""

    prediction_choices = ("Yes", "No")


def variant(prompts: str, question: str) -> RadVariant:
    return RadYesNo(prompts, question) if question == "yes-no" else RadVariant(prompts, question)


def _tag_of(text: str) -> Tag | None:
    """The tag of the other agent's message in any of the three wordings."""
    found = HUMAN_REPLY.match(text)
    if found:
        return Tag(found.group("tag"))
    return REFERENCE.tag_of(text) or paper_tag(text)
