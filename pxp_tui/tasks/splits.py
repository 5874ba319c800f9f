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
