"""Model replies read as real models write them: the checker's Yes or No, the machine's labelled answer."""

from __future__ import annotations

import pytest

from pxp_tui.agents.checker import parse_answer
from pxp_tui.common.instance import Instance
from pxp_tui.common.replies import cut_off_thinking, trim_fences, without_thinking
from pxp_tui.engine import ParseError
from pxp_tui.tasks import get_task
from pxp_tui.tasks.drug import chem

DRUG, RAD = get_task("drug"), get_task("rad")
PARACETAMOL = Instance(id=1, dataset="d", key="paracetamol", input="CC(=O)Nc1ccc(O)cc1", meta={"name": "Paracetamol"})
REACTANTS = "Nc1ccc(O)cc1.CC(=O)OC(C)=O"
WHY = "N-acetylation of 4-aminophenol with acetic anhydride; the amine is the better nucleophile."

# --- the checker ------------------------------------------------------------------------------

CLEAR_ANSWERS = [
    ("Yes", True),
    ("No.", False),
    ("YES", True),
    ("Judgement: Yes", True),
    ("Judgment: No", False),
    ("**Answer:** No", False),
    ("Answer: **Yes**", True),
    ("**Yes**", True),
    ("Yes, they are consistent.", True),
    ("Yes.\nYes", True),
    ("No. The first proposes an acylation, the second a reduction of a nitro group.", False),
    ("Yes\n\nBoth explanations describe the N-acetylation of 4-aminophenol.", True),
    ("No, they are not inconsistent.", False),  # the verdict word, not the prose's logic
    ("No they are not", False),
    ("Yes—both describe a right-sided effusion.", True),
    ("```\nYes\n```", True),
    ("`No`", False),
    ('"Yes"', True),
    ("## Answer\nYes", True),
    ("### Verdict\n\n**No**", False),
    ("Verdict - No", False),
    ("Consistent: yes", True),
    ("Consistent (Yes/No): No", False),
    ("Final answer: Yes", True),
    ("A: No", False),
    ("- Yes", True),
    ("> No", False),
    ("The first report describes blunting of the angle; so does the second.\n\nYes", True),
    ("Both describe an SN2 substitution. Answer: Yes", True),
    ("No contradictions between them. The answer is **Yes**.", True),
    ("**Judgement:** Yes\n\n**Reasoning:** No contradiction; both name the same reactants.", True),
    ("## Answer\nYes, they are consistent.", True),
    ("**Verdict**\n\nNo, the mechanisms differ.", False),
    ("Answer Yes or No.\n\nNo", False),  # the instruction echoed, then the answer
    ("Are these two reports consistent with each other? Yes.", True),
    ("Consistent.", True),
    ("Not consistent.", False),
    ("<think>\nThe first says effusion. No, wait, the second also does.\n</think>\n\nYes", True),
    ("Comparing them, both name an acylation... yes.\n</think>\n\n**No**", False),  # the server dropped <think>
]

UNCLEAR_ANSWERS = [
    "Yes or No",
    "Yes/No",
    "Yes. No.",
    "Yes\nNo",
    "Answer: Yes\nFinal answer: No",
    "Yes and no: the mechanism differs.",
    "Maybe",
    "",
    "I cannot tell from these texts.",
    "No contradictions were found.",  # "no" here is not a verdict
    "The first says no effusion; the second says yes, there is one.",
    "I would say yes",
    "Partially consistent: the reactants match but not the mechanism.",
    "<think>\nThe first report mentions an effusion and the",  # cut off while thinking
]


@pytest.mark.parametrize(("reply", "verdict"), CLEAR_ANSWERS)
def test_a_checker_answer_is_read_as_the_yes_or_no_it_clearly_is(reply: str, verdict: bool) -> None:
    assert parse_answer(reply) is verdict


@pytest.mark.parametrize("reply", UNCLEAR_ANSWERS)
def test_a_checker_answer_with_neither_or_both_is_not_read(reply: str) -> None:
    assert parse_answer(reply) is None


# --- what models wrap around answers ----------------------------------------------------------


def test_thinking_is_set_aside_closed_unopened_or_cut_off() -> None:
    assert without_thinking("<think>\nPathway: CCO\n</think>\nPathway: CCN").strip() == "Pathway: CCN"
    assert without_thinking("Let me think... </think>\n\nYes").strip() == "Yes"
    assert without_thinking("<THINKING>a</THINKING>b<think>never closed").strip() == "b"
    assert cut_off_thinking("<think>\nThe target is an amide, so")
    assert not cut_off_thinking("<think>x</think>Yes") and not cut_off_thinking("Yes")


def test_fences_around_a_part_go_and_a_code_block_inside_stays() -> None:
    assert trim_fences(["", "```smiles", "CCO", "```", ""]) == ["CCO"]
    assert trim_fences(["The reaction.", "```"]) == ["The reaction."]  # half of a fence around the whole reply
    inside = ["The reaction:", "```", "CCO>>CC=O", "```", "is an oxidation."]
    assert trim_fences(inside) == inside


# --- the machine: DRUG ------------------------------------------------------------------------

DRUG_REPLIES = [
    f"Pathway: {REACTANTS}\nExplanation: {WHY}",
    f"**Pathway:** {REACTANTS}\n**Explanation:** {WHY}",
    f"**Pathway**: {REACTANTS}\n\n**Explanation**: {WHY}",
    f"pathway: {REACTANTS}\nEXPLANATION: {WHY}",
    f"## Pathway\n{REACTANTS}\n\n## Explanation\n{WHY}",
    f"### **Pathway**\n```smiles\n{REACTANTS}\n```\n\n### **Explanation**\n{WHY}",
    f"```\nPathway: {REACTANTS}\nExplanation: {WHY}\n```",
    f"Here is my retrosynthetic analysis:\n\n```text\nPathway: {REACTANTS}\nExplanation: {WHY}\n```\n\nLet me know if you need more.",
    f"Sure! Paracetamol is an amide, so the natural disconnection is the C-N bond.\n\n"
    f"**Pathway:** `Nc1ccc(O)cc1` + `CC(=O)OC(C)=O`\n\n**Explanation:** {WHY}\n\n"
    "I hope this helps! Let me know if you would like the forward conditions.",
    f"<think>\nThe target has an acetamide. Pathway: CCO? No, the amine and the anhydride.\n</think>\n\n"
    f"Pathway: {REACTANTS}\nExplanation: {WHY}",
    f"Okay, the C-N bond is the obvious one to break.\n</think>\nPathway: {REACTANTS}\nExplanation: {WHY}",
    f"1. **Pathway:** {REACTANTS}\n2. **Explanation:** {WHY}",
    f"Final pathway: 4-aminophenol (Nc1ccc(O)cc1) and acetic anhydride (CC(=O)OC(C)=O)\nExplanation: {WHY}",
    f"Pathway (reactants): CC(=O)Nc1ccc(O)cc1>>{REACTANTS}\nExplanation: {WHY}",
    f'{{"pathway": "{REACTANTS}", "explanation": "{WHY}"}}',
    f'```json\n{{\n  "Pathway": ["Nc1ccc(O)cc1", "CC(=O)OC(C)=O"],\n  "Explanation": "{WHY}"\n}}\n```',
    f"| Field | Value |\n|---|---|\n| Pathway | `{REACTANTS}` |\n| Explanation | {WHY} |",
    f"Explanation: {WHY}\n\nPathway: {REACTANTS}",
    f"Pathway: {REACTANTS}\nExplanation: {WHY}\n\nPathway: {REACTANTS}\nExplanation: {WHY}",  # said twice
]


@pytest.mark.parametrize("reply", DRUG_REPLIES)
def test_drug_replies_shaped_like_real_models_give_the_reactants_and_the_explanation_verbatim(reply: str) -> None:
    prediction, explanation = DRUG.parse(reply, PARACETAMOL)
    assert chem.canonical_parts(prediction) == chem.canonical_parts(REACTANTS)
    assert explanation == WHY


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("I'm sorry, I can't help with retrosynthesis of this compound.", "no 'Pathway:'"),
        (f"<think>\nThe target is paracetamol. The amide bond {REACTANTS}", "stops inside <think>"),
        (f"<think>Pathway: {REACTANTS}\nExplanation: {WHY}</think>\nI am not sure.", "no 'Pathway:'"),
        (f"Pathway: {REACTANTS}", "Explanation"),
        (f"Pathway: {REACTANTS}\nExplanation:\n\nLet me know if you need more.", "Explanation"),
        ("Pathway: an amine and an anhydride\nExplanation: amide formation", "no valid SMILES"),
        ('{"pathway": "CCO"}', "Explanation"),
    ],
)
def test_drug_replies_without_an_answer_are_refused_with_the_reason(reply: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        DRUG.parse(reply, PARACETAMOL)


NITRO_ESTER = Instance(id=2, dataset="d", key="e", input="CCOC(=O)c1ccc([N+](=O)[O-])cc1", meta={})


@pytest.mark.parametrize(
    ("written", "pathway"),
    [
        ("O=[N+]([O-])c1ccc(C(=O)O)cc1.CCO", "Pathway: `{}`"),
        ("O=[N+]([O-])c1ccc(C(=O)O)cc1.CCO", "**Pathway:**\n```\n{}\n```"),
        ("O=[N+]([O-])c1ccc(C(=O)O)cc1.CCO", "Pathway: {}"),
        ("[O-][N+](=O)c1ccc(C(=O)Cl)cc1.[Na+].[O-]CC", "Pathway: {}"),
        ("C[C@@H](N)C(=O)O.C/C=C/C(=O)Cl", "## Pathway\n`{}`"),
        ("[2H]C([2H])([2H])I.C%10CCCCC%10.O", "Pathway: ```{}```"),
    ],
)
def test_drug_smiles_in_code_marks_come_out_as_the_same_molecules(written: str, pathway: str) -> None:
    reply = pathway.format(written) + "\n\nExplanation: Esterification."
    prediction, _ = DRUG.parse(reply, NITRO_ESTER)
    assert chem.canonical_parts(prediction) == chem.canonical_parts(written)


@pytest.mark.parametrize(
    "pathway",
    [
        "4-nitrobenzoic acid (O=[N+]([O-])c1ccc(C(=O)O)cc1) + ethanol (CCO)",
        "`O=[N+]([O-])c1ccc(C(=O)O)cc1` and `CCO`",
        "O=[N+]([O-])c1ccc(C(=O)O)cc1 + CCO → CCOC(=O)c1ccc([N+](=O)[O-])cc1",
    ],
)
def test_charged_atoms_in_prose_keep_their_charge(pathway: str) -> None:
    prediction, _ = DRUG.parse(f"Pathway: {pathway}\nExplanation: Fischer esterification.", NITRO_ESTER)
    assert chem.canonical_parts(prediction) == chem.canonical_parts("O=[N+]([O-])c1ccc(C(=O)O)cc1.CCO")


# --- the machine: RAD -------------------------------------------------------------------------

REPORT = "Blunting of the right costophrenic angle with a meniscus; no pneumothorax."
RAD_REPLIES = [
    ("**Prediction:** Pleural Effusion\n**Explanation:** {r}", "Pleural Effusion"),
    ("**Prediction**: pneumothorax\n\n**Explanation**: {r}", "Pneumothorax"),
    ("## Prediction\nCardiomegaly\n\n## Explanation\n{r}", "Cardiomegaly"),
    ("```\nPrediction: Atelectasis\nExplanation: {r}\n```", "Atelectasis"),
    (
        "Based on the image, here is my assessment.\n\n1. **Prediction:** Right-sided pleural effusion\n2. **Explanation:** {r}",
        "Pleural Effusion",
    ),
    (
        "<think>\nCould be pneumonia, but the meniscus...\n</think>\n\nPrediction: Pleural Effusion\nExplanation: {r}",
        "Pleural Effusion",
    ),
    ("PREDICTION: PNUM\nEXPLANATION: {r}\n\nI hope this helps! Please consult a radiologist.", "Pneumonia"),
    (
        "Prediction: **Pleural Effusion**\n\nExplanation: {r}\n\n---\n\n*Disclaimer: this is not medical advice.*",
        "Pleural Effusion",
    ),
    (
        "**Prediction: Pneumothorax**\n**Explanation: {r}**\nPlease consult a radiologist for a definitive reading.",
        "Pneumothorax",
    ),
    ("### Final Prediction\n**Pneumothorax**\n### Explanation\n{r}", "Pneumothorax"),
    ('{{"prediction": "Cardiomegaly", "explanation": "{r}"}}', "Cardiomegaly"),
    ("| Prediction | Atelectasis |\n| Explanation | {r} |", "Atelectasis"),
    ("Explanation: {r}\nPrediction: Pleural Effusion", "Pleural Effusion"),
    ("Reasoning: the angle is blunted.\n\nPrediction: Pleural Effusion\nExplanation: {r}", "Pleural Effusion"),
    ("### Prediction\n**Prediction:** Pneumonia\n### Explanation\n**Explanation:** {r}", "Pneumonia"),
]


@pytest.mark.parametrize(("reply", "label"), RAD_REPLIES)
def test_rad_replies_shaped_like_real_models_give_the_condition_and_the_report_verbatim(reply: str, label: str) -> None:
    assert RAD.parse(reply.format(r=REPORT)) == (label, REPORT)


def test_a_report_with_its_own_findings_and_impression_stays_whole() -> None:
    report = "Findings: Blunted right costophrenic angle.\nImpression: Right pleural effusion."
    assert RAD.parse(f"Prediction: Pleural Effusion\nExplanation:\n{report}") == ("Pleural Effusion", report)
    inner = "The lungs are clear.\n```\nCTR 0.62\n```\nThe heart is enlarged."
    assert RAD.parse(f"Prediction: Cardiomegaly\nExplanation: {inner}")[1] == inner  # a code block inside stays
    ending = "The heart is enlarged. If you need higher confidence, a lateral view helps."
    assert RAD.parse(f"Prediction: Cardiomegaly\nExplanation: {ending}")[1] == ending  # not a sign-off


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("I'm unable to interpret medical images.", "no 'Prediction:'"),
        ("<think>\nThe image shows a chest radiograph with", "stops inside <think>"),
        ("Prediction: Normal chest\nExplanation: Clear lungs.", "names none of"),
        ("Prediction: No pneumothorax\nExplanation: Clear lungs.", "names none of"),
        ("**Prediction:** Pneumonia", "Explanation"),
    ],
)
def test_rad_replies_without_an_answer_are_refused_with_the_reason(reply: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        RAD.parse(reply)
