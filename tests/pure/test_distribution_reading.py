"""Distributions are read from replies as models write them, and asked for in words that read back."""

from __future__ import annotations

import pytest

from pxp_tui.tasks.distribution import OTHER, block, drug_instruction, rad_instruction, read_drug, read_rad
from pxp_tui.tasks.drug import chem
from pxp_tui.tasks.rad.labels import LABELS

REPLY = "Prediction: Pneumonia\nExplanation: Right lower lobe consolidation, 3 cm, no effusion.\n"


def rad(text: str, prediction: str = "Pneumonia") -> dict[str, float]:
    read = read_rad(text, prediction)
    assert not read.missing, text
    return {label: p for label, p in read.probabilities.items() if p}


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            REPLY
            + "Distribution: Atelectasis: 0.1, Pneumonia: 0.6, Pleural Effusion: 0.2, Cardiomegaly: 0.05, Pneumothorax: 0.05",
            {"Atelectasis": 0.1, "Pneumonia": 0.6, "Pleural Effusion": 0.2, "Cardiomegaly": 0.05, "Pneumothorax": 0.05},
        ),
        (REPLY + "Distribution: Pneumonia 60%, Atelectasis 40%", {"Pneumonia": 0.6, "Atelectasis": 0.4}),
        (
            REPLY + "Distribution: Pneumonia (0.7), pleural effusion (0.2), PTX (0.1)",
            {"Pneumonia": 0.7, "Pleural Effusion": 0.2, "Pneumothorax": 0.1},
        ),
        (
            REPLY + "**Distribution:**\n- **Pneumonia**: 0.5\n- *Atelectasis*: 0.3\n- Effusion: 0.2\n\nThat is all.",
            {"Pneumonia": 0.5, "Atelectasis": 0.3, "Pleural Effusion": 0.2},
        ),
        (
            REPLY + "Distribution:\n1. Pneumonia - 50%\n2. Atelectasis - 30%\n3. Cardiomegaly - 20%",
            {"Pneumonia": 0.5, "Atelectasis": 0.3, "Cardiomegaly": 0.2},
        ),
        (
            REPLY + "Distribution: 60% pneumonia, 30% atelectasis, 10% cardiac enlargement",
            {"Pneumonia": 0.6, "Atelectasis": 0.3, "Cardiomegaly": 0.1},
        ),
        (
            REPLY + "### Distribution\n| Condition | Probability |\n|---|---|\n| Pneumonia | 0.7 |\n| Atelectasis | 0.3 |",
            {"Pneumonia": 0.7, "Atelectasis": 0.3},
        ),
        (
            REPLY + "Probabilities: Pneumonia: 60, Atelectasis: 20",
            {"Pneumonia": 0.75, "Atelectasis": 0.25},
        ),  # percent, renormalised
        # a number in a remark is not a probability, even after a condition's name
        (
            REPLY + "Distribution: Atelectasis: 0.6 (pneumonia less likely, 2 lobes), Pneumonia: 0.4",
            {"Atelectasis": 0.6, "Pneumonia": 0.4},
        ),
        (REPLY + "Distribution: Pneumonia: 0.5, Atelectasis: 0.3", {"Pneumonia": 0.625, "Atelectasis": 0.375}),
        (
            REPLY + "Distribution: Pleural effusion: 0.2, Effusion: 0.1, Pneumonia: 0.7",
            {"Pleural Effusion": 0.3, "Pneumonia": 0.7},
        ),
        # before the prediction: the block ends at the next section
        (
            "Distribution: Pneumonia: 0.8, Atelectasis: 0.2\nPrediction: Pneumonia\nExplanation: 45 degree line, 2 cm.",
            {"Pneumonia": 0.8, "Atelectasis": 0.2},
        ),
    ],
)
def test_rad_distributions_are_read_as_models_write_them(text: str, expected: dict[str, float]) -> None:
    assert rad(text) == pytest.approx(expected)


def test_every_condition_is_listed_in_the_fixed_order_and_the_rest_is_zero() -> None:
    read = read_rad(REPLY + "Distribution: Pneumothorax: 0.5, Atelectasis: 0.5", "Pneumothorax")
    assert list(read.probabilities) == list(LABELS)
    assert read.probabilities == {
        "Atelectasis": 0.5,
        "Pneumonia": 0.0,
        "Pleural Effusion": 0.0,
        "Cardiomegaly": 0.0,
        "Pneumothorax": 0.5,
    }
    assert read.top == "Atelectasis"  # a tie goes to the first in order


def test_mass_on_conditions_outside_the_five_is_kept_as_other_and_reported() -> None:
    read = read_rad(REPLY + "Distribution: Pneumonia: 0.5, Rib fracture: 0.3, Atelectasis: 0.2", "Pneumonia")
    assert read.probabilities["Pneumonia"] == pytest.approx(0.5) and read.probabilities["Atelectasis"] == pytest.approx(0.2)
    assert read.probabilities[OTHER] == pytest.approx(0.3)  # not dropped, not spread over the five
    assert list(read.probabilities) == [*LABELS, OTHER]
    assert read.unread == ("Rib fracture",) and not read.missing
    # the case: "Hepatitis C 30%" no longer turns Pneumonia into 0.857
    read = read_rad(REPLY + "Distribution: Pneumonia 60%, Hepatitis C 30%, Atelectasis 10%", "Pneumonia")
    assert read.probabilities["Pneumonia"] == pytest.approx(0.6) and read.probabilities[OTHER] == pytest.approx(0.3)
    # a line that states the total is not an entry
    read = read_rad(REPLY + "Distribution: Pneumonia: 0.6, Atelectasis: 0.4 (total 1.0)", "Pneumonia")
    assert OTHER not in read.probabilities and read.probabilities["Pneumonia"] == pytest.approx(0.6)


def test_a_top_k_reply_is_cut_to_k() -> None:
    text = (
        REPLY + "Distribution: Pneumonia: 0.4, Atelectasis: 0.25, Pleural Effusion: 0.15, Cardiomegaly: 0.12, Pneumothorax: 0.08"
    )
    read = read_rad(text, "Pneumonia", k=3)
    assert sum(p > 0 for p in read.probabilities.values()) == 3 and read.cut == ("Cardiomegaly", "Pneumothorax")
    assert read.probabilities["Pneumonia"] == pytest.approx(0.4 / 0.8) and read.probabilities["Cardiomegaly"] == 0
    assert read_rad(text, "Pneumonia").cut == ()  # no k: all five kept


@pytest.mark.parametrize(
    "text", [REPLY, REPLY + "Distribution: I cannot say.", REPLY + "Distribution: Pneumonia: 0, Atelectasis: 0"]
)
def test_without_a_readable_distribution_none_is_made_up(text: str) -> None:
    read = read_rad(text, "consolidation")  # a synonym of Pneumonia: never a one-hot on it
    assert read.missing and read.top is None and read.probabilities == {}


def test_numbers_of_the_explanation_are_not_read() -> None:
    assert block(REPLY) is None
    assert rad(REPLY + "Distribution: Pneumonia: 1") == {"Pneumonia": 1.0}
    with pytest.raises(ValueError, match="names none"):
        read_rad(REPLY, "fracture")


ACYL = "CC(=O)Cl.CCO"  # canonical, sorted
ACID = "CC(=O)O.CCO"


def test_drug_distributions_are_read_over_canonical_reactant_sets() -> None:
    text = "Pathway: CCO.CC(=O)Cl\nExplanation: Esterification, 2 steps.\nDistribution:\nCCO.CC(=O)Cl: 0.6\nCC(=O)O.CCO: 0.4\n"
    read = read_drug(text, "CCO.CC(=O)Cl")
    assert read.probabilities == pytest.approx({ACYL: 0.6, ACID: 0.4}) and not read.missing
    assert read.top == ".".join(chem.canonical_parts("CCO.CC(=O)Cl") or [])
    # written otherwise: backticks, percentages, one line, the same set twice, a ring-closure digit
    text = "Distribution: `OCC.ClC(C)=O` (30%), `CCO.CC(=O)Cl` (30%), - **C1CCCCC1N.CC(=O)O** - 40%"
    read = read_drug(text, "CCO.CC(=O)Cl")
    assert read.probabilities == pytest.approx({ACYL: 0.6, "CC(=O)O.NC1CCCCC1": 0.4})


def test_drug_keeps_the_top_k_and_reads_reaction_smiles() -> None:
    target = "CCOC(C)=O"
    text = f"Distribution:\n{target}>>CCO.CC(=O)Cl: 0.5\nCC(=O)O.CCO: 0.3\nCCO.CC(=O)OC(C)=O: 0.2"
    read = read_drug(text, ACYL, target=target, k=2)
    assert read.probabilities == pytest.approx({ACYL: 0.5 / 0.8, ACID: 0.3 / 0.8})


def test_drug_reports_what_it_could_not_read_and_makes_nothing_up() -> None:
    read = read_drug("Pathway: CCO.CC(=O)Cl\nExplanation: x", "ClC(C)=O.OCC")
    assert read.missing and read.probabilities == {}
    read = read_drug("Distribution:\nsomething unclear: 0.5\nCCO.CC(=O)Cl: 0.5", ACYL)
    assert read.probabilities == {ACYL: 1.0} and not read.missing and read.unread == ("something unclear",)
    with pytest.raises(ValueError, match="not valid SMILES"):
        read_drug("", "not a molecule")
    with pytest.raises(ValueError):
        read_drug("", ACYL, k=0)


def test_the_instructions_ask_for_what_is_read_back() -> None:
    asked = rad_instruction()
    assert "Distribution: Atelectasis: <p>, Pneumonia: <p>, Pleural Effusion: <p>, Cardiomegaly: <p>, Pneumothorax: <p>" in asked
    answered = REPLY + asked.split("\n")[-1].replace("<p>", "0.2")
    assert rad(answered) == pytest.approx({label: 0.2 for label in LABELS})
    assert "3 most likely conditions" in rad_instruction(3) and rad_instruction(3).count("<condition>") == 3
    asked = drug_instruction(3)
    assert "at most 3 candidate reactant sets" in asked
    template = asked.split("\n")[-1]
    answered = "Pathway: CCO.CC(=O)Cl\nExplanation: x\nDistribution:\n" + template.replace(
        "<reactant SMILES separated by '.'>", "CCO.CC(=O)Cl"
    ).replace("<p>", "1")
    assert read_drug(answered, ACYL).probabilities == {ACYL: 1.0}
    for bad in (lambda: rad_instruction(0), lambda: rad_instruction(6), lambda: drug_instruction(0)):
        with pytest.raises(ValueError):
            bad()
