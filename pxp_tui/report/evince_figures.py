"""The EVINCE paper's figures from stored rounds, drawn with the report's style (:mod:`pxp_tui.report.style`).

- :func:`draw_measures`: entropy of each agent, WD %, normalised MI (the paper's Figure 4), and the
  divergences by round, KL and cross entropy both ways and JSD (its Figures 5 and 7), medians across
  sessions by round;
- :func:`draw_case`: one session's top-k distributions round by round, each agent's bar stacked by label
  with the label and its percent written in each segment (its Figure 6a).

Every line has its own marker and line style as well as its colour, bars are hatched by label, and legends sit
outside the plots, so the figures read in greyscale and in print. Each is written as PNG, SVG and PDF.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: hatchings of the bars of Figure 6, one per label (repeating), with a grey of its own
HATCHES = ("", "//", "\\\\", "--", "||", "xx", "..", "++")

#: the panels of :func:`draw_measures`: title, y label, upper bound (None: from the data), and its series
MEASURE_PANELS: tuple[tuple[str, str, float | None, tuple[tuple[str, str], ...]], ...] = (
    ("Entropy of each agent", "bits", None, (("entropy_machine", "H machine"), ("entropy_human", "H other"))),
    ("WD % (of the largest)", "%", 100.0, (("wasserstein_percent", "WD %"),)),
    ("Normalised MI", "NMI", 1.0, (("normalised_mi", "NMI"),)),
    (
        "Divergences (smoothed)",
        "bits",
        None,
        (
            ("kl_machine_human", "KL(machine||other)"),
            ("kl_human_machine", "KL(other||machine)"),
            ("cross_entropy_machine_human", "CE(machine, other)"),
            ("cross_entropy_human_machine", "CE(other, machine)"),
            ("js_divergence", "JSD"),
        ),
    ),
)


def draw_measures(rounds: Sequence[int], medians: Mapping[str, Sequence[float | None]], path: Path, title: str) -> list[Path]:
    """Figure 4's three panels and Figures 5/7's divergences: ``medians[measure]`` holds each round's value (None:
    none that round; infinite: a raw divergence, marked by an arrow at the top). Written as ``path`` (PNG), SVG and
    PDF; the paths written."""
    from pxp_tui.report import style

    if not rounds:
        raise ValueError("a figure needs at least one round")
    fig, axes = style.panels(len(MEASURE_PANELS), per_row=2, panel_inches=(5.2, 3.6))
    fig.suptitle(title)
    for ax, (name, ylabel, top, measures) in zip(axes, MEASURE_PANELS, strict=True):
        for position, (measure, label) in enumerate(measures):
            look = style.series_style(position)
            values = medians.get(measure, [None] * len(rounds))
            shown = [(r, v) for r, v in zip(rounds, values, strict=True) if v is not None and math.isfinite(v)]
            ax.plot([r for r, _ in shown], [v for _, v in shown], label=label, **look)
            infinite = [r for r, v in zip(rounds, values, strict=True) if v is not None and not math.isfinite(v)]
            if infinite:  # a raw divergence without a value: an arrow at the top of the panel
                ax.plot(infinite, [1.0] * len(infinite), linestyle="none", marker="^", color=look["color"],
                        transform=ax.get_xaxis_transform(), clip_on=False)  # fmt: skip
        ax.set_title(name)
        ax.set_xlabel("round")
        ax.set_ylabel(ylabel)
        ax.set_xticks(list(rounds))
        ax.set_ylim(0, top) if top is not None else ax.set_ylim(bottom=0)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)  # beside the panel
    fig.tight_layout()
    return style.save(fig, path)


def _short(label: str, width: int) -> str:
    return label if len(label) <= width else label[: max(1, width - 1)] + "."


def draw_case(
    rounds: Sequence[tuple[int, Mapping[str, float] | None, Mapping[str, float] | None]],
    path: Path,
    title: str,
    truth: str | None = None,
) -> list[Path]:
    """One session's distributions round by round (``(round, machine's, other's)``): per round two bars, the
    machine's (M) and the other's (O), stacked by label, most probable at the bottom, each segment hatched by
    its label and written with the label and its percent; the case's label, if known, is marked in the legend.
    Written as ``path`` (PNG), SVG and PDF; the paths written."""
    from matplotlib.patches import Patch

    from pxp_tui.report import style

    if not rounds:
        raise ValueError("a figure needs at least one round")
    labels: list[str] = []
    for _, m, o in rounds:
        for d in (m, o):
            for name, p in sorted((d or {}).items(), key=lambda item: -item[1]):
                if p > 0 and name not in labels:
                    labels.append(name)
    hatch = {name: HATCHES[i % len(HATCHES)] for i, name in enumerate(labels)}
    grey = {name: str(0.97 - 0.07 * (i % 6)) for i, name in enumerate(labels)}
    plt = style.pyplot()
    fig, ax = plt.subplots(figsize=(max(style.MIN_WIDTH / style.DPI, 1.6 * len(rounds) + 3.2), 4.6))
    ticks, names = [], []
    for index, (r, machine, other) in enumerate(rounds):
        for offset, who, found in ((-0.21, "M", machine), (0.21, "O", other)):
            x = index + offset
            ticks.append(x)
            names.append(f"{who}\nround {r}" if who == "M" else who)
            bottom = 0.0
            for label, p in sorted((found or {}).items(), key=lambda item: -item[1]):
                if p <= 0:
                    continue
                ax.bar(x, p * 100, 0.38, bottom=bottom, color=grey[label], edgecolor="black", hatch=hatch[label],
                       linewidth=0.8)  # fmt: skip
                if p >= 0.07:
                    ax.text(x, bottom + p * 50, f"{_short(label, 11)}\n{p:.0%}", ha="center", va="center", fontsize=7,
                            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5, "alpha": 0.85})  # fmt: skip
                bottom += p * 100
    ax.set_xticks(ticks, names, fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("probability (%)")
    ax.set_axisbelow(True)  # grid lines behind the bars
    ax.set_title(title, fontsize=10)
    handles = [
        Patch(facecolor=grey[label], edgecolor="black", hatch=hatch[label],
              label=_short(label, 26) + ("  (the label)" if truth is not None and label.casefold() == truth.casefold() else ""))
        for label in labels[:14]
    ]  # fmt: skip
    ax.legend(handles=handles, title="labels (M: machine, O: other)", loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False, fontsize=8)  # fmt: skip
    fig.tight_layout()
    return style.save(fig, path)


def case_rounds(rows: Sequence[Mapping[str, Any]]) -> list[tuple[int, dict[str, float] | None, dict[str, float] | None]]:
    """A session's messages (``j``, ``distribution`` JSON) as rounds of (machine's, other's) distributions."""
    import json

    by_j = {r["j"]: json.loads(r["distribution"]) for r in rows if r["distribution"]}
    found = []
    for j in sorted(by_j):
        if j % 2 == 1:
            found.append(((j + 1) // 2, by_j[j], by_j.get(j + 1)))
    return found
