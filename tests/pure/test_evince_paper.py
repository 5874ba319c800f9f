"""The EVINCE paper's own worked examples (paper 003, Appendices B and C: both agents' top-k distributions
round by round), measured by the project's functions and, independently, with scipy and numpy from the
paper's definitions (Appendix D's formulas, Table 1's smoothing, Figure 1's loop, Appendix F's EnToPPS).

The distributions are copied from the paper's text; Gemini's opening round in Appendix B sums to 95%
and is normalised, as every measure does."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial.distance import cityblock, jensenshannon
from scipy.special import xlogy
from scipy.stats import entropy

from pxp_tui.protocol import evince
from pxp_tui.protocol.evince import RoundInformation, entopps, rounds_of, should_stop
from pxp_tui.protocol.information import wasserstein_percent

# -- Appendix B: Dengue Fever vs Chikungunya (GPT-4 opens, Gemini answers; top-3) ----------------------
B_ROUNDS = [
    (
        {"Dengue Fever": 0.60, "Chikungunya": 0.25, "Zika Virus": 0.15},
        {"Viral Infection": 0.60, "Autoimmune Disease": 0.20, "Bacterial Infection": 0.15},
    ),
    (
        {"Dengue Fever": 0.60, "Chikungunya": 0.25, "Zika Virus": 0.15},
        {"Dengue Fever": 0.50, "Chikungunya": 0.30, "Viral Infection": 0.20},
    ),
    (
        {"Dengue Fever": 0.60, "Chikungunya": 0.35, "Zika Virus": 0.05},
        {"Dengue Fever": 0.60, "Chikungunya": 0.35, "Zika Virus": 0.05},
    ),
]

# -- Appendix C: Jaundice vs Hepatitis (GPT-4 opens, Claude answers; top-5) ---------------------------
HCV, HBV, CIRR, OJ, ALF, ALC, HAV = (
    "Hepatitis C (HCV)",
    "Hepatitis B (HBV)",
    "Cirrhosis",
    "Obstructive Jaundice",
    "Acute Liver Failure",
    "Alcoholic Hepatitis",
    "Hepatitis A (HAV)",
)
C_ROUNDS = [
    ({HCV: 0.40, HBV: 0.30, CIRR: 0.15, OJ: 0.10, ALF: 0.05}, {HBV: 0.35, HCV: 0.25, OJ: 0.20, ALC: 0.15, HAV: 0.05}),
    ({HBV: 0.35, HCV: 0.25, OJ: 0.20, ALC: 0.15, HAV: 0.05}, {HCV: 0.40, HBV: 0.30, CIRR: 0.15, OJ: 0.10, ALF: 0.05}),
    ({HCV: 0.35, HBV: 0.25, CIRR: 0.20, OJ: 0.15, ALF: 0.05}, {HCV: 0.35, HBV: 0.30, CIRR: 0.20, OJ: 0.10, ALF: 0.05}),
]
#: Appendix C.8, the joint final round
C_FINAL = {HCV: 0.35, HBV: 0.30, CIRR: 0.20, OJ: 0.10, ALF: 0.05}


def vectors(a: dict[str, float], b: dict[str, float]) -> tuple[list[str], np.ndarray, np.ndarray]:
    labels = sorted(set(a) | set(b))
    p = np.array([a.get(x, 0.0) for x in labels])
    q = np.array([b.get(x, 0.0) for x in labels])
    return labels, p / p.sum(), q / q.sum()


def earth_movers_01(p: np.ndarray, q: np.ndarray) -> float:
    """The 1-Wasserstein distance under the 0/1 ground metric, as an optimal-transport linear programme."""
    n = len(p)
    cost = (1 - np.eye(n)).ravel()
    rows = [np.kron(np.eye(n)[i], np.ones(n)) for i in range(n)]  # sum_j T[i, j] = p[i]
    cols = [np.kron(np.ones(n), np.eye(n)[j]) for j in range(n)]  # sum_i T[i, j] = q[j]
    found = linprog(cost, A_eq=np.array(rows + cols), b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    assert found.status == 0
    return float(found.fun)


def maximal_agreement_mi(p: np.ndarray, q: np.ndarray) -> float:
    """I(X;Y) of the joint that puts min(p, q) on the diagonal and pairs the leftovers independently, via scipy."""
    both = np.minimum(p, q)
    lp, lq = p - both, q - both
    joint = np.diag(both) + (np.outer(lp, lq) / lp.sum() if lp.sum() > 0 else 0)
    return float(entropy(joint.ravel(), np.outer(p, q).ravel(), base=2))


def cross_entropy(p: np.ndarray, q: np.ndarray) -> float:
    """H(P, Q) = -sum P log2 Q (Appendix D): infinite where Q is 0 under P's mass."""
    return float(-np.sum(xlogy(p, q)) / np.log(2))


def smoothed(v: np.ndarray, e: float = 0.01) -> np.ndarray:
    return (v + e) / (1 + len(v) * e)


def expected(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    _, p, q = vectors(a, b)
    ps, qs = smoothed(p), smoothed(q)
    h = max(entropy(p, base=2), entropy(q, base=2))
    return {
        "entropy_machine": entropy(p, base=2),
        "entropy_human": entropy(q, base=2),
        "js_divergence": jensenshannon(p, q, base=2) ** 2,
        "wasserstein": earth_movers_01(p, q),
        "kl_machine_human": entropy(ps, qs, base=2),
        "kl_human_machine": entropy(qs, ps, base=2),
        "cross_entropy_machine_human": cross_entropy(ps, qs),
        "cross_entropy_human_machine": cross_entropy(qs, ps),
        "kl_machine_human_raw": entropy(p, q, base=2),
        "kl_human_machine_raw": entropy(q, p, base=2),
        "cross_entropy_machine_human_raw": cross_entropy(p, q),
        "cross_entropy_human_machine_raw": cross_entropy(q, p),
        "mutual_information": maximal_agreement_mi(p, q),
        "normalised_mi": maximal_agreement_mi(p, q) / h,
    }


@pytest.mark.parametrize(("name", "rounds"), [("B", B_ROUNDS), ("C", C_ROUNDS)])
def test_every_round_of_the_papers_examples_equals_scipy(name: str, rounds: list) -> None:
    for r, (a, b) in enumerate(rounds, start=1):
        measured = RoundInformation.measure(r, a, b).as_dict()
        for measure, value in expected(a, b).items():
            if math.isinf(value):
                assert math.isinf(measured[measure]), (name, r, measure)
            else:
                assert measured[measure] == pytest.approx(value, abs=1e-9), (name, r, measure)


def test_round_one_of_appendix_b_disjoint_top_3s() -> None:
    """GPT-4 and Gemini open with no disease in common: WD is the whole mass, MI nothing, the raw KL and CE
    undefined (infinite) while the smoothed ones are finite."""
    first = RoundInformation.measure(1, *B_ROUNDS[0])
    assert first.wasserstein == pytest.approx(1.0) and wasserstein_percent(first.wasserstein) == 100
    assert first.js_divergence == pytest.approx(1.0) and first.normalised_mi == 0
    assert math.isinf(first.kl_machine_human_raw) and math.isinf(first.cross_entropy_human_machine_raw)
    assert math.isfinite(first.kl_machine_human) and first.kl_machine_human > 0
    assert first.entropy_machine == pytest.approx(entropy([0.6, 0.25, 0.15], base=2))
    assert first.entropy_human == pytest.approx(entropy(np.array([0.6, 0.2, 0.15]) / 0.95, base=2))


def test_round_one_of_appendix_c_in_figures() -> None:
    """GPT-4's and Claude's opening top-5s share four diseases: WD (0/1) is 0.35, the paper's WD % 35."""
    first = RoundInformation.measure(1, *C_ROUNDS[0])
    _, p, q = vectors(*C_ROUNDS[0])
    assert first.wasserstein == pytest.approx(cityblock(p, q) / 2) == pytest.approx(0.35)
    assert wasserstein_percent(first.wasserstein) == pytest.approx(35.0)
    assert first.entropy_machine == pytest.approx(2.009, abs=1e-3) and first.entropy_human == pytest.approx(2.121, abs=1e-3)
    # raw KL and CE undefined both ways: each names a disease the other gives 0
    assert math.isinf(first.kl_machine_human_raw) and math.isinf(first.kl_human_machine_raw)
    # the raw cross entropy of a distribution with itself is its entropy; the smoothed one is a little more
    same = RoundInformation.measure(1, C_FINAL, C_FINAL)
    assert same.cross_entropy_machine_human_raw == pytest.approx(entropy(list(C_FINAL.values()), base=2))
    assert same.kl_machine_human_raw == 0 and same.cross_entropy_machine_human > same.cross_entropy_machine_human_raw


def test_the_stop_rules_on_appendix_c() -> None:
    """Round 2 swaps the two opening distributions: nothing moved. The plateau rule stops there; Figure 1's
    loop (WD <= WD_old and MI >= MI_old) goes on, as the paper's debate did, to round 3, where WD fell."""
    rounds = rounds_of({j: d for r, pair in enumerate(C_ROUNDS) for j, d in zip((2 * r + 1, 2 * r + 2), pair, strict=True)})
    assert [r.round for r in rounds] == [1, 2, 3]
    assert rounds[1].wasserstein == pytest.approx(rounds[0].wasserstein)
    assert should_stop(rounds[:2], rule=evince.PLATEAU)
    assert not should_stop(rounds[:2], rule=evince.FIG1)
    assert rounds[2].wasserstein < rounds[1].wasserstein and not should_stop(rounds, rule=evince.FIG1)
    # a CRIT that falls ends Figure 1's loop; the plateau rule does not read CRIT
    assert should_stop(rounds, rule=evince.FIG1, crit=[7.0, 7.0, 5.0])
    assert not should_stop(rounds, rule=evince.PLATEAU, crit=[7.0, 7.0, 5.0])


def test_the_stop_rules_on_appendix_b() -> None:
    """Appendix B converges: WD 1 -> 0.25 -> 0 and NMI 0 -> ... -> 1; neither rule stops before round 3.
    A fourth round like the third is flat: the plateau rule stops, Figure 1's loop does not (WD <= WD_old)."""
    pairs = [*B_ROUNDS, B_ROUNDS[-1]]
    rounds = rounds_of({j: d for r, pair in enumerate(pairs) for j, d in zip((2 * r + 1, 2 * r + 2), pair, strict=True)})
    assert [round(r.wasserstein, 9) for r in rounds] == [1.0, 0.25, 0.0, 0.0]
    assert rounds[2].normalised_mi == pytest.approx(1.0)
    for rule in evince.EVINCE_RULES:
        assert not should_stop(rounds[:2], rule=rule) and not should_stop(rounds[:3], rule=rule)
    assert should_stop(rounds, rule=evince.PLATEAU) and not should_stop(rounds, rule=evince.FIG1)


def app_f(a: dict[str, float], b: dict[str, float], k: int) -> dict[str, float]:
    """Appendix F step by step: top-k of each, their union, back-fill (the average where both have it), normalise."""
    top_a = sorted(a, key=lambda x: -a[x])[:k]
    top_b = sorted(b, key=lambda x: -b[x])[:k]
    union = list(dict.fromkeys(top_a + top_b))
    filled = {x: (a[x] + b[x]) / 2 if x in top_a and x in top_b else (a[x] if x in top_a else b[x]) for x in union}
    total = sum(filled.values())
    return {x: v / total for x, v in filled.items()}


def test_entopps_on_the_opening_round_of_appendix_c() -> None:
    a, b = C_ROUNDS[0]
    found = entopps(a, b, 5)
    assert found == pytest.approx(app_f(a, b, 5))
    assert set(found) == {HCV, HBV, CIRR, OJ, ALF, ALC, HAV}  # the union: 7 labels, k <= m <= 2k
    assert found[HCV] == pytest.approx(0.325 / 1.2) and found[CIRR] == pytest.approx(0.15 / 1.2)
    # the weighted average of Figure 1's step 3 puts 0 where an agent lacks a label: other numbers
    weighted = evince.combine(a, b)
    assert weighted[CIRR] == pytest.approx(0.075) != pytest.approx(found[CIRR])
    final, how = evince.aggregate(a, b, k=5)
    assert how == evince.ENTOPPS and final == pytest.approx(found)


def test_the_last_round_of_appendix_c_aggregates_to_the_joint_final() -> None:
    """Round 3's top-5 sets are the same, so the weighted average applies; Claude's round 3 is the paper's joint
    final (C.8), which CRIT weights all on Claude would give."""
    a, b = C_ROUNDS[2]
    final, how = evince.aggregate(a, b, 0.0, 1.0, k=5)
    assert how == evince.WEIGHTED and final == pytest.approx(C_FINAL)
    equal, _ = evince.aggregate(a, b, k=5)
    assert equal[HBV] == pytest.approx(0.275) and equal[OJ] == pytest.approx(0.125)
