"""Seeded train / val / test splits, stratified by the reference prediction."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import SPLITS


def parse_ratios(text: str) -> tuple[float, float, float]:
    """``"60/20/20"`` (or ``0.6,0.2,0.2``) as the train, val and test shares, summing to 1."""
    parts = [p for p in text.replace(",", "/").replace(":", "/").split("/") if p.strip()]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 3 or any(v < 0 for v in values) or sum(values) <= 0:
        raise ValueError(f"a split must be three shares train/val/test such as 60/20/20, got {text!r}")
    total = sum(values)
    return values[0] / total, values[1] / total, values[2] / total


def assign(
    rows: Sequence[DatasetRow], ratios: tuple[float, float, float], seed: int, group: Callable[[DatasetRow], str]
) -> list[DatasetRow]:
    """The rows, in their order, each given a split; seeded, and stratified by ``group``.

    Rows are shuffled with ``seed``, ordered by group, then dealt out so that every prefix of that
    order is as close to the ratios as it can be: each split gets its share overall and, as nearly
    as the counts allow, within every group.
    """
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    order.sort(key=lambda i: group(rows[i]))  # stable: shuffled within each group
    counts = dict.fromkeys(SPLITS, 0)
    chosen: dict[int, str] = {}
    for dealt, index in enumerate(order, start=1):
        split = max(SPLITS, key=lambda s: ratios[SPLITS.index(s)] * dealt - counts[s])
        counts[split] += 1
        chosen[index] = split
    return [replace(row, split=chosen[i]) for i, row in enumerate(rows)]


def set_split(rows: Sequence[DatasetRow], split: str) -> list[DatasetRow]:
    """Every row in ``split`` (a split chosen by file)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    return [replace(row, split=split) for row in rows]


#: the reference scripts' DRUG split (src/interact.py): ``retro.csv`` shuffled by pandas' ``sample(frac=1,
#: random_state=42)``, then train the first 10%, val from 60% to 80%, test the last 20%; rows from 10% to 60%
#: are used by none of them
REFERENCE_SEED = 42
REFERENCE_SLICES = (("train", 0.0, 0.1), ("val", 0.6, 0.8), ("test", 0.8, 1.0))


def reference_order(count: int, seed: int = REFERENCE_SEED) -> list[int]:
    """The row order of pandas' ``sample(frac=1, random_state=seed)`` over ``count`` rows: numpy's legacy
    ``RandomState(seed).permutation(count)`` (``sample`` draws ``choice(count, count, replace=False)``, which is that
    permutation; numpy keeps the legacy generator's stream fixed across releases)."""
    import numpy as np  # only for this split

    return [int(i) for i in np.random.RandomState(seed).permutation(count)]


def reference_split(rows: Sequence[DatasetRow]) -> tuple[list[DatasetRow], int]:
    """The rows the reference scripts use, in their shuffled order, each in its split; and how many it leaves out."""
    order = reference_order(len(rows))
    total = len(rows)
    chosen: list[DatasetRow] = []
    for split, start, end in REFERENCE_SLICES:
        chosen += [replace(rows[i], split=split) for i in order[int(total * start) : int(total * end)]]
    return chosen, total - len(chosen)


def per_label(rows: Sequence[DatasetRow], count: int, label: Callable[[DatasetRow], str]) -> list[DatasetRow]:
    """The first ``count`` rows of each label, in file order (the reference's preprocess.py, which made the
    papers' "4 instances per disease"); ValueError naming the labels that have fewer."""
    if count < 1:
        raise ValueError(f"--per-label must be at least 1, got {count}")
    seen: dict[str, int] = {}
    kept = []
    for row in rows:
        name = label(row)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] <= count:
            kept.append(row)
    short = {name: n for name, n in seen.items() if n < count}
    if short:
        listed = ", ".join(f"{name} {n}" for name, n in sorted(short.items()))
        raise ValueError(f"--per-label {count}: these labels have fewer rows ({listed}); nothing imported")
    return kept
