"""Bad input to the protocol's functions is refused with a message that says what is wrong and with what value (these
messages reach the researcher through ``pxp run``'s options, a stored distribution, a CRIT judge's reply)."""

from __future__ import annotations

import math

import pytest

from pxp_tui.protocol import Tag, allowed_tags, curve, decide_tag, sender_at
from pxp_tui.protocol.crit import strength
from pxp_tui.protocol.evince import RoundInformation, aggregate, combine, contentiousness, should_stop, summarise
from pxp_tui.protocol.information import DistributionError, kl_divergence, normalise
from pxp_tui.protocol.repeats import Spread


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sender_at(0), "message numbers start at 1, got 0"),
        (lambda: decide_tag(-1, 3, True, True, False), "message numbers start at 1, got -1"),
        (lambda: decide_tag(2, 0, True, True, False), "k must be at least 1, got 0"),
        (lambda: allowed_tags(0, 3), "message numbers start at 1, got 0"),
        (lambda: curve([], 0), "the message bound must be at least 1, got 0"),
        (lambda: Spread.of([]), "a spread needs at least one value"),
    ],
)
def test_the_rules_say_which_number_is_wrong(call, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        call()


def test_an_unknown_tag_lists_the_tags() -> None:
    with pytest.raises(ValueError, match=r"^unknown tag 'AGREE' \(expected one of INIT, RATIFY, REFUTE, REVISE, REJECT\)$"):
        Tag.parse("AGREE")


@pytest.mark.parametrize(
    ("validity", "credibility", "named"), [(0.5, 5, "validity"), (5, 11, "credibility"), (5, math.nan, "credibility")]
)
def test_a_crit_score_off_its_scale_names_which(validity: float, credibility: float, named: str) -> None:
    value = validity if named == "validity" else credibility
    with pytest.raises(ValueError, match=rf"^a reason's {named} lies in 1-10, got {value!r}$"):
        strength(validity, credibility)


def rounds(*pairs: tuple[float, float]) -> list[RoundInformation]:
    return [RoundInformation.measure(r, {"a": a, "b": 1 - a}, {"a": b, "b": 1 - b}) for r, (a, b) in enumerate(pairs, 1)]


def test_evinces_functions_refuse_what_they_cannot_use() -> None:
    with pytest.raises(ValueError, match=r"^rounds are numbered from 1, got 0$"):
        RoundInformation.measure(0, {"a": 1}, {"a": 1})
    with pytest.raises(ValueError, match=r"^rounds are numbered from 1, got 0$"):
        contentiousness(0)
    with pytest.raises(ValueError, match=r"^EVINCE's stop rule is one of fig1, plateau, got 'calm'$"):
        should_stop(rounds((0.5, 0.5), (0.6, 0.6)), rule="calm")
    with pytest.raises(ValueError, match=r"^a session summary needs at least one round$"):
        summarise([])
    with pytest.raises(ValueError, match=r"^the aggregation is one of entopps, weighted, got 'mean'$"):
        aggregate({"a": 1}, {"a": 1}, method="mean")
    with pytest.raises(DistributionError, match=r"^the weights must be finite, not negative and not both 0: \(0\.0, 0\.0\)$"):
        combine({"a": 1}, {"a": 1}, 0.0, 0.0)


@pytest.mark.parametrize(
    ("start", "decay", "hold"), [(1.5, 0.25, 2), (-0.1, 0.25, 2), (0.9, 1.5, 2), (0.9, -0.5, 2), (0.9, 0.25, -1)]
)
def test_contentiousness_out_of_range_says_what_the_range_is(start: float, decay: float, hold: int) -> None:
    with pytest.raises(
        ValueError, match=r"^contentiousness and its decay lie in \[0, 1\], and the rounds held are not negative$"
    ):
        contentiousness(3, start, decay, hold)


@pytest.mark.parametrize(
    ("start", "decay", "hold"), [(0.0, 0.25, 2), (1.0, 0.25, 2), (0.9, 0.0, 2), (0.9, 1.0, 2), (0.9, 0.25, 0)]
)
def test_contentiousness_takes_the_ends_of_its_ranges(start: float, decay: float, hold: int) -> None:
    assert contentiousness(3, start, decay, hold) == start * (1 - decay) ** max(0, 3 - hold)


@pytest.mark.parametrize(
    ("distribution", "labels", "message"),
    [
        ({"a": 0.5, "x": 0.2, "y": 0.2, "z": 0.1, "w": 0.0}, ["a"], r"^labels not in the label set: 'x', 'y', 'z'$"),
        ({"a": "half"}, None, r"^the probability of 'a' is not a number: 'half'$"),
        ({"a": True}, None, r"^the probability of 'a' is not a number: True$"),
        ({"a": -0.5, "b": 1}, None, r"^the probability of 'a' is -0\.5: it must be finite and not negative$"),
        ({"a": math.inf}, None, r"^the probability of 'a' is inf: it must be finite and not negative$"),
        ({"a": 0, "b": 0.0}, None, r"^the distribution has no mass \(every probability is 0\)$"),
    ],
)
def test_what_is_not_a_distribution_is_refused_saying_why(distribution: dict, labels: list[str] | None, message: str) -> None:
    with pytest.raises(DistributionError, match=message):
        normalise(distribution, labels)


def test_a_negative_smoothing_is_refused() -> None:
    with pytest.raises(DistributionError, match=r"^smoothing must be finite and not negative, got -0\.1$"):
        kl_divergence({"a": 1}, {"a": 1}, -0.1)
