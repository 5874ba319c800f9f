"""The report's "Information (EVINCE)" section: EVINCE's measures by round across sessions (issue 10).

For each round r, the sessions that reached it and the median of each measure over them (the shape of
the paper's Figure 4: WD falling, MI rising); the CSV adds min and max. A PNG draws the medians of WD,
JSD and normalised MI by round, with Pillow as :mod:`pxp_tui.report.figure` does.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from pxp_tui.blackboard.finals import FinalWeights
from pxp_tui.protocol.evince import NOT_JUDGED

#: the offline judge's method (``crit:`` and how the offline model is named to users)
OFFLINE_CRIT = "crit:offline baseline"

#: measure -> its header (bits; JSD the divergence; NMI normalised by the larger entropy)
MEASURES = {
    "entropy_machine": "H machine",
    "entropy_human": "H other",
    "wasserstein": "WD",
    "js_divergence": "JSD",
    "kl_machine_human": "KL(m,o)",
    "kl_human_machine": "KL(o,m)",
    "mutual_information": "MI",
    "normalised_mi": "NMI",
}
#: measure -> colour in the figure (Okabe-Ito)
DRAWN = {"wasserstein": (0, 114, 178), "js_divergence": (213, 94, 0), "normalised_mi": (0, 158, 115)}


@dataclass(frozen=True)
class RoundSummary:
    round: int
    sessions: int
    #: measure -> (median, min, max)
    values: Mapping[str, tuple[float, float, float]]


def per_round(rows: Sequence[Mapping[str, Any]]) -> list[RoundSummary]:
    """The rounds' medians (and ranges) across sessions, from ``round_information`` rows."""
    by_round: dict[int, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_round.setdefault(row["round"], []).append(row)
    found = []
    for r, members in sorted(by_round.items()):
        values = {}
        for name in MEASURES:
            seen = [float(m[name]) for m in members if m[name] is not None]
            if seen:
                values[name] = (statistics.median(seen), min(seen), max(seen))
        found.append(RoundSummary(r, len(members), values))
    return found


def _cell(value: tuple[float, float, float] | None) -> str:
    return "" if value is None else f"{value[0]:.3f}"


def markdown(summary: Sequence[RoundSummary], sessions: Sequence[Mapping[str, Any]], figure: str | None = None) -> str:
    """The section's body: how it was measured, the per-round table, the sessions' summary."""
    if not summary:
        return "No rounds: these runs stored no distributions (run with `--top-k`, best with `--human model:...`)."
    header = ["round", "sessions", *MEASURES.values()]
    lines = [
        "Medians across sessions of EVINCE's measures of each round (round r: the machine's message 2r-1 and the "
        "other agent's answer 2r), in bits; WD over RAD's five conditions in labels.py order (total variation for "
        "DRUG); KL and cross entropy smoothed (0.01); MI of the maximal-agreement coupling, NMI = MI / max(H). "
        "`pxp export` writes every round (`round_information`).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" for _ in header) + "|",
    ]
    for s in summary:
        lines.append("| " + " | ".join([str(s.round), str(s.sessions), *(_cell(s.values.get(m)) for m in MEASURES)]) + " |")
    if sessions:
        count = len(sessions)
        fell = sum(1 for s in sessions if s["wasserstein_decreased"])
        rose = sum(1 for s in sessions if s["mi_increased"])
        converged = [s["converged_at"] for s in sessions if s["converged_at"] is not None]
        where = f", median round {statistics.median(converged):g}" if converged else ""
        lines += [
            "",
            f"{count} session(s) with rounds: WD fell (last round vs first) in {fell}, NMI rose in {rose}; "
            f"EVINCE's stop rule (WD not down and NMI not up) held in {len(converged)}{where}.",
        ]
    finals = final_lines(sessions)
    if finals:
        lines += ["", finals]
    if figure:
        lines += ["", f"![WD, JSD and NMI by round]({figure})"]
    return "\n".join(lines)


def final_lines(sessions: Sequence[Mapping[str, Any]]) -> str:
    """How the sessions' final distributions (EVINCE's step 3) were weighed: each method with its sessions
    and median weights; a word on those still waiting for their judge."""
    weights = [w for w in (FinalWeights.read(s.get("final_weights")) for s in sessions) if w is not None]
    if not weights:
        return ""
    by_method: dict[str, list[FinalWeights]] = {}
    for w in weights:
        by_method.setdefault(w.method, []).append(w)
    parts = [
        f"{method} in {len(found)} (median weights machine {statistics.median(w.machine for w in found):g}, "
        f"other {statistics.median(w.human for w in found):g})"
        for method, found in sorted(by_method.items(), key=lambda item: -len(item[1]))
    ]
    text = (
        f"Final distributions (EVINCE's step 3: the agents' last distributions, weighted, `data.final_distribution`) "
        f"of {len(weights)} session(s), weighed by: {'; '.join(parts)}."
    )
    if any(method.startswith("crit:") for method in by_method):
        text += " crit: a judge model scored each agent's arguments 1-10 (CRIT), the scores are the weights"
        text += "; the offline judge is a baseline that reads no reasons." if OFFLINE_CRIT in by_method else "."
    if NOT_JUDGED in by_method:
        text += " Sessions `equal (not judged)` ended before their judge answered: resume the run to weigh them."
    return text


def csv_rows(summary: Sequence[RoundSummary]) -> list[list[Any]]:
    """A header, then one row per round: sessions, and each measure's median, min and max."""
    rows: list[list[Any]] = [["round", "sessions", *(f"{m}_{s}" for m in MEASURES for s in ("median", "min", "max"))]]
    for summary_row in summary:
        row: list[Any] = [summary_row.round, summary_row.sessions]
        for name in MEASURES:
            row += list(summary_row.values.get(name, ("", "", "")))
        rows.append(row)
    return rows


SIZE = (560, 360)
MARGIN = (56, 40, 20, 64)  # left, top, right, bottom


def draw(summary: Sequence[RoundSummary], path: Path) -> Path:
    """The medians of WD, JSD and NMI by round as a PNG (the shape of the paper's Figure 4)."""
    if not summary:
        raise ValueError("a figure needs at least one round")
    image = Image.new("RGB", SIZE, "white")
    canvas = ImageDraw.Draw(image)
    font, small = ImageFont.load_default(size=14), ImageFont.load_default(size=11)
    left, top, right, bottom = MARGIN
    width, height = SIZE[0] - left - right, SIZE[1] - top - bottom
    top_value = max([1.0, *(s.values[m][0] for s in summary for m in DRAWN if m in s.values)])
    n = len(summary)

    def xy(index: int, value: float) -> tuple[float, float]:
        return left + index / max(n - 1, 1) * width, top + height - value / top_value * height

    canvas.text((SIZE[0] // 2, 8), "EVINCE measures by round (medians across sessions)", fill="black", font=font, anchor="mt")
    canvas.rectangle([left, top, left + width, top + height], outline=(120, 120, 120))
    for tick in range(5):
        value = top_value * tick / 4
        _, y = xy(0, value)
        canvas.line([left, y, left + width, y], fill=(230, 230, 230))
        canvas.text((left - 6, y), f"{value:.2f}", fill="black", font=small, anchor="rm")
    for index, s in enumerate(summary):
        x, _ = xy(index, 0)
        canvas.text((x, top + height + 6), f"{s.round}\n({s.sessions})", fill="black", font=small, anchor="ma", align="center")
    canvas.text((left + width // 2, top + height + 38), "round (sessions reaching it)", fill="black", font=small, anchor="mt")
    x = left
    for name, colour in DRAWN.items():
        points = [xy(i, s.values[name][0]) for i, s in enumerate(summary) if name in s.values]
        if len(points) > 1:
            canvas.line(points, fill=colour, width=2)
        for px, py in points:
            canvas.ellipse([px - 3, py - 3, px + 3, py + 3], fill=colour)
        label = MEASURES[name]
        canvas.line([x, SIZE[1] - 12, x + 20, SIZE[1] - 12], fill=colour, width=3)
        canvas.text((x + 24, SIZE[1] - 12), label, fill="black", font=small, anchor="lm")
        x += 40 + int(canvas.textlength(label, font=small))
    image.save(path, format="PNG")
    return path
