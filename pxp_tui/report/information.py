"""The report's "Information (EVINCE)" section: EVINCE's measures by round, the debates' evaluation, figures.

For each round r, the sessions that reached it and the median of each measure over them (the shape of
the paper's Figures 4, 5 and 7); the CSV adds min and max. The raw KL divergences and cross entropies are
infinite where undefined (NULL in the blackboard): a median over them may be infinite, shown as ``inf``.
Figures: :mod:`pxp_tui.report.evince_figures`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pxp_tui.blackboard.finals import FinalWeights
from pxp_tui.protocol import StopReason
from pxp_tui.protocol.evince import NOT_JUDGED
from pxp_tui.report import evince_figures

#: measure -> its header (bits; JSD the divergence; NMI normalised by the larger entropy)
MEASURES = {
    "entropy_machine": "H machine",
    "entropy_human": "H other",
    "wasserstein": "WD",
    "wasserstein_percent": "WD %",
    "js_divergence": "JSD",
    "normalised_mi": "NMI",
    "mutual_information": "MI",
    "crit": "CRIT",
}
#: the divergences' table: smoothed and raw, both ways
DIVERGENCES = {
    "kl_machine_human": "KL(m,o)",
    "kl_human_machine": "KL(o,m)",
    "cross_entropy_machine_human": "CE(m,o)",
    "cross_entropy_human_machine": "CE(o,m)",
    "kl_machine_human_raw": "raw KL(m,o)",
    "kl_human_machine_raw": "raw KL(o,m)",
    "cross_entropy_machine_human_raw": "raw CE(m,o)",
    "cross_entropy_human_machine_raw": "raw CE(o,m)",
}
#: the raw measures: NULL in the blackboard means infinite (undefined), not missing
RAW = tuple(name for name in DIVERGENCES if name.endswith("_raw"))
#: sessions drawn one by one (the paper's Figure 6a): the longest ones
CASES = 3


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
        for name in (*MEASURES, *DIVERGENCES):
            if name in RAW:
                seen = [math.inf if m.get(name) is None else float(m[name]) for m in members]
            else:
                seen = [float(m[name]) for m in members if m.get(name) is not None]
            if seen:
                values[name] = (statistics.median(seen), min(seen), max(seen))
        found.append(RoundSummary(r, len(members), values))
    return found


def _cell(value: tuple[float, float, float] | None) -> str:
    if value is None:
        return ""
    return "inf" if math.isinf(value[0]) else f"{value[0]:.3f}"


def _table(summary: Sequence[RoundSummary], measures: Mapping[str, str]) -> list[str]:
    header = ["round", "sessions", *measures.values()]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    for s in summary:
        lines.append("| " + " | ".join([str(s.round), str(s.sessions), *(_cell(s.values.get(m)) for m in measures)]) + " |")
    return lines


def ended(sessions: Sequence[Mapping[str, Any]]) -> str:
    """How the sessions ended, most frequent first: ``diverged 8, bound 2 (EVINCE's rule met at the bound's round in
    1: diverged 1), converged 1``. A session at the bound whose run's rule held at its last round has both facts."""
    reasons: dict[str, int] = {}
    for s in sessions:
        reasons[str(s.get("stop_reason"))] = reasons.get(str(s.get("stop_reason")), 0) + 1
    at_bound: dict[str, int] = {}
    for s in sessions:
        if (
            s.get("stop_reason") == StopReason.BOUND.value
            and s.get("rule_at") is not None
            and s["rule_at"] == s.get("last_round")
        ):
            at_bound[str(s.get("rule_outcome"))] = at_bound.get(str(s.get("rule_outcome")), 0) + 1
    parts = []
    for why, n in sorted(reasons.items(), key=lambda item: -item[1]):
        part = f"{why} {n}"
        if why == StopReason.BOUND.value and at_bound:
            found = ", ".join(f"{o} {m}" for o, m in sorted(at_bound.items(), key=lambda item: -item[1]))
            part += f" (EVINCE's rule met at the bound's round in {sum(at_bound.values())}: {found})"
        parts.append(part)
    return ", ".join(parts)


def left_out(unstated: Sequence[Mapping[str, Any]]) -> str:
    """A sentence on the rounds left out because a reply stated no readable distribution ('' if none)."""
    if not unstated:
        return ""
    sessions = len({u["session_id"] for u in unstated})
    whose = {"machine": 0, "other": 0}
    for u in unstated:
        whose["machine"] += u.get("machine_stated") == 0
        whose["other"] += u.get("human_stated") == 0
    by = ", ".join(f"{who} {n}" for who, n in whose.items() if n)
    return (
        f"{len(unstated)} round(s) in {sessions} session(s) were left out: a reply stated no readable distribution "
        f"({by}). They are in no measure above, the stop rule compared the rounds around them, and no final "
        "distribution is made from them (`unstated_rounds`)."
    )


def markdown(
    summary: Sequence[RoundSummary],
    sessions: Sequence[Mapping[str, Any]],
    figure: str | None = None,
    evaluation: str = "",
    cases: Sequence[str] = (),
    unstated: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The section's body: how it was measured, the per-round tables, the sessions' summary, the rounds left out,
    the evaluation."""
    if not summary:
        none = "No rounds: no session of these runs has both agents' distributions (`--human model:...` with `--top-k`)."
        if unstated:
            none += " " + left_out(unstated)
        return none + ("\n\n" + evaluation if evaluation else "")
    lines = [
        "Medians across sessions of EVINCE's measures of each round (round r: the machine's message 2r-1 and the "
        "other agent's answer 2r), in bits. WD under each run's ground metric (`runs.ground_metric`: 0/1, the total "
        "variation, or labels in order), and WD % its share of the largest the metric allows (the paper's Figures 4b "
        "and 6b); MI of the maximal-agreement coupling, NMI = MI / max(H); CRIT the round's score (the mean of both "
        "agents', 1-10; empty: not judged). The stop rules compare each run's `--evince-mi` (NMI, or MI in bits). "
        "`pxp export` writes every round (`round_information`).",
        "",
        *_table(summary, MEASURES),
        "",
        "KL divergence and cross entropy, both ways: smoothed (each run's `--smoothing` added to every label's "
        "probability) and raw (the paper's formulas as they stand: `inf` where the second distribution gives 0 to a "
        "label the first does not, NULL in the blackboard).",
        "",
        *_table(summary, DIVERGENCES),
    ]
    if sessions:
        count = len(sessions)
        fell = sum(1 for s in sessions if s["wasserstein_decreased"])
        rose = sum(1 for s in sessions if s["mi_increased"])
        stopped = [s for s in sessions if s.get("stop_reason") in {r.value for r in StopReason if r.by_evince}]
        fig1 = sum(1 for s in sessions if s.get("fig1_at") is not None)
        plateau = sum(1 for s in sessions if s.get("plateau_at") is not None)
        lines += [
            "",
            f"{count} session(s) with rounds (ended: {ended(sessions)}): WD fell (last round vs first) in {fell}, NMI "
            f"rose in {rose}; Figure 1's loop would have ended in {fig1}, the plateau rule held in {plateau} (each with "
            f"its run's tolerance and MI); {len(stopped)} were stopped by EVINCE's rule: converged where WD fell or the "
            "agents agree within the tolerance, diverged where WD rose, stalled where it did not move.",
        ]
    if unstated:
        lines += ["", left_out(unstated)]
    finals = final_lines(sessions)
    if finals:
        lines += ["", finals]
    if evaluation:
        lines += ["", evaluation]
    if figure:
        lines += ["", f"![entropy, WD %, NMI and the divergences by round]({figure})"]
    for case in cases:
        lines += ["", f"![one session's distributions by round]({case})"]
    return "\n".join(lines)


def final_lines(sessions: Sequence[Mapping[str, Any]]) -> str:
    """How the sessions' final distributions were made: each weighing method with its sessions and median
    weights, how many were aggregated by EnToPPS; a word on those still waiting for their weights."""
    weights = [w for w in (FinalWeights.read(s.get("final_weights")) for s in sessions) if w is not None]
    if not weights:
        return ""
    by_method: dict[str, list[FinalWeights]] = {}
    for w in weights:
        by_method.setdefault(w.method, []).append(w)
    parts = [
        f"{method} in {len(found)} (median weights machine {statistics.median(w.machine for w in found):.3g}, "
        f"other {statistics.median(w.human for w in found):.3g})"
        for method, found in sorted(by_method.items(), key=lambda item: -len(item[1]))
    ]
    entopps = sum(1 for w in weights if w.aggregation == "entopps")
    text = (
        f"Final distributions (`data.final_distribution`) of {len(weights)} session(s): {entopps} by EnToPPS "
        f"(Appendix F: the agents' top-k label sets differed), {len(weights) - entopps} by the weighted average of "
        f"Figure 1's step 3; weighed by: {'; '.join(parts)}."
    )
    if any(method.startswith("crit:") for method in by_method):
        text += " crit: the last round's CRIT scores of each agent (a judge model, Table 4) are the weights."
    if any(method.startswith("offline heuristic") for method in by_method):
        text += " The offline heuristic is a stand-in for CRIT that reads no reasons."
    if NOT_JUDGED in by_method:
        text += " Sessions `equal (not judged)` ended before they were weighed: resume the run to weigh them."
    return text


def csv_rows(summary: Sequence[RoundSummary]) -> list[list[Any]]:
    """A header, then one row per round: sessions, and each measure's median, min and max."""
    names = [*MEASURES, *DIVERGENCES]
    rows: list[list[Any]] = [["round", "sessions", *(f"{m}_{s}" for m in names for s in ("median", "min", "max"))]]
    for summary_row in summary:
        row: list[Any] = [summary_row.round, summary_row.sessions]
        for name in names:
            row += list(summary_row.values.get(name, ("", "", "")))
        rows.append(row)
    return rows


def draw(summary: Sequence[RoundSummary], path: Path) -> list[Path]:
    """Entropy per agent, WD %, NMI and the divergences by round (medians across sessions) as PNG, SVG and PDF."""
    rounds = [s.round for s in summary]
    medians = {name: [s.values[name][0] if name in s.values else None for s in summary] for name in (*MEASURES, *DIVERGENCES)}
    counts = ", ".join(f"{s.round}: {s.sessions}" for s in summary)
    return evince_figures.draw_measures(rounds, medians, path, f"EVINCE measures by round, medians (sessions per round {counts})")


def longest(sessions: Sequence[Mapping[str, Any]], count: int = CASES) -> list[Mapping[str, Any]]:
    """The sessions drawn one by one: the ``count`` with the most rounds (the first of equals)."""
    return sorted(sessions, key=lambda s: (-int(s["rounds"]), s["session_id"]))[:count]
