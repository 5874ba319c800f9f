"""The report's evaluation of debates: each agent's first and last distribution and the final one against the
instance's label (top-1 and top-k accuracy, MRR: the paper's Figure 2) and confusion matrices (its Figure 3).

The numbers are the ``debate_ranks`` view's rows (:mod:`pxp_tui.blackboard.debate_eval`) averaged over
the selected runs' sessions, so ``sqlite3`` users get the same from ``debate_accuracy`` (per run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pxp_tui.blackboard.debate_eval import WHICH

#: how each distribution is named in the report
NAMES = {
    "machine_first": "machine, first",
    "machine_last": "machine, last",
    "human_first": "other, first",
    "human_last": "other, last",
    "final": "final (aggregated)",
}
#: the largest confusion matrix drawn as a table; larger ones list their off-diagonal cells
MATRIX = 12


def accuracy_rows(ranks: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """A header, then per distribution: sessions, top-1 and top-k accuracy, MRR (means over the rows)."""
    rows: list[list[Any]] = [["distribution", "sessions", "k", "top1_accuracy", "topk_accuracy", "mrr"]]
    for which in WHICH:
        found = [r for r in ranks if r["which"] == which]
        if not found:
            continue
        ks = sorted({r["k"] for r in found if r["k"] is not None})
        n = len(found)
        rows.append(
            [
                which,
                n,
                "/".join(map(str, ks)) or "any",
                sum(r["top1"] for r in found) / n,
                sum(r["topk"] for r in found) / n,
                sum(r["reciprocal_rank"] for r in found) / n,
            ]
        )
    return rows


def confusion(ranks: Sequence[Mapping[str, Any]], which: str = "final") -> tuple[list[str], dict[tuple[str, str], int]]:
    """The labels (true and predicted, sorted) and the count of each (true, predicted) pair for ``which``."""
    counts: dict[tuple[str, str], int] = {}
    for r in ranks:
        if r["which"] == which:
            key = (str(r["label"]), str(r["predicted"]))
            counts[key] = counts.get(key, 0) + 1
    labels = sorted({x for pair in counts for x in pair}, key=str.casefold)
    return labels, counts


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def confusion_markdown(ranks: Sequence[Mapping[str, Any]], which: str = "final") -> str:
    """The confusion matrix of ``which`` as a Markdown table (rows: the label; columns: the top-1 prediction)."""
    labels, counts = confusion(ranks, which)
    if not counts:
        return ""
    if len(labels) > MATRIX:
        wrong = sorted(((n, t, p) for (t, p), n in counts.items() if t != p), reverse=True)
        right = sum(n for (t, p), n in counts.items() if t == p)
        listed = "; ".join(f"{_cell(t)} as {_cell(p)}: {n}" for n, t, p in wrong[:20]) or "none"
        return f"{right} correct; the confusions, most frequent first: {listed}."
    lines = [
        "| label \\ predicted | " + " | ".join(_cell(x) for x in labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for true in labels:
        lines.append(f"| {_cell(true)} | " + " | ".join(str(counts.get((true, p), "")) for p in labels) + " |")
    return "\n".join(lines)


def markdown(ranks: Sequence[Mapping[str, Any]]) -> str:
    """The evaluation subsection: accuracy and MRR before and after, and the final distribution's confusion matrix."""
    rows = accuracy_rows(ranks)
    if len(rows) < 2:
        return ""
    header, body = rows[0], rows[1:]
    lines = [
        "### Evaluation against the label",
        "Each agent's first and last distribution of a session and the final one, against the instance's label "
        "(the paper's Figure 2): top-1 accuracy, top-k accuracy (k = `--top-k`) and the mean reciprocal rank within "
        "the top k. A rank is pessimistic: the label ranks after every label at least as probable. Per run in the "
        "views `debate_accuracy`, `debate_ranks` and `debate_confusion`.",
        "",
        "| distribution | sessions | k | top-1 | top-k | MRR |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    assert header[0] == "distribution"
    for which, n, k, top1, topk, mrr in body:
        lines.append(f"| {NAMES[which]} | {n} | {k} | {top1:.3f} | {topk:.3f} | {mrr:.3f} |")
    for which, title in (("final", "final distributions"), ("machine_first", "the machine's first distributions")):
        table = confusion_markdown(ranks, which)
        if table:
            lines += ["", f"Confusion matrix of {title} (rows: the label; columns: the most probable label):", "", table]
    return "\n".join(lines)


def confusion_rows(ranks: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """A header, then one row per distribution, label and prediction with its count (the CSV)."""
    rows: list[list[Any]] = [["distribution", "label", "predicted", "sessions"]]
    for which in WHICH:
        _, counts = confusion(ranks, which)
        rows += [[which, t, p, n] for (t, p), n in sorted(counts.items())]
    return rows
