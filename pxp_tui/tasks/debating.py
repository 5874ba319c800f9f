"""How the offline readers debate (``--human model:offline`` with ``--top-k``), the same for every task.

A request in a debate ends with the round's contentiousness (``Debate contentiousness: 0.90 ...``); without
``--contentiousness``, a reader asked for a distribution debates at contentiousness 0 once the other's latest
reply states a distribution (so it holds by its own certainty alone). Each
reader states ``w * own + (1 - w) * other's latest``, its own view of the case mixed with the other
agent's latest distribution as that message states it, with ``w = max(contentiousness, sharpness)`` and
sharpness its own top probability: at a high contentiousness, or sure of itself, it holds; as the
contentiousness falls, an unsure reader moves towards the other. A pair that starts apart converges, or
stalls where both are sure and disagree.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from pxp_tui.protocol.information import normalise

_CONTENTIOUS = re.compile(r"Debate contentiousness: (?P<level>\d*\.?\d+)")


def contentiousness_in(user_texts: Iterable[str]) -> float | None:
    """The contentiousness the latest of the requests' texts sets (None: not a debate)."""
    texts = list(user_texts)
    found = _CONTENTIOUS.findall(texts[-1]) if texts else []
    return min(1.0, float(found[-1])) if found else None


def held(own: Mapping[str, float], level: float) -> float:
    """How much a reader holds to its own view: the contentiousness, or its top probability if larger."""
    return max(level, max(own.values(), default=0.0))


def debated(
    own: Mapping[str, float], other: Mapping[str, float] | None, level: float, labels: tuple[str, ...] = ()
) -> dict[str, float]:
    """``w * own + (1 - w) * other`` (:func:`held`), over ``labels`` then any other label either names; ``own``
    alone when the other has stated no distribution yet."""
    order = tuple(dict.fromkeys([*labels, *own, *(other or {})]))
    if other is None:
        return normalise({x: own.get(x, 0.0) for x in order}, order)
    w = held(own, level)
    return normalise({x: w * own.get(x, 0.0) + (1 - w) * other.get(x, 0.0) for x in order}, order)


def idiosyncrasy(seed: int, key: str, label: str) -> float:
    """A fixed score in [-1, 1] for (reader, case, label): a reader's taste, so that two readers with different
    seeds start apart on the same case."""
    digest = hashlib.sha256(f"{seed}\x00{key}\x00{label}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**31 - 1
