"""docs/FIDELITY.md's "reference scripts" column, read against what the reference scripts do.

The list below was written from the scripts themselves (the authors' ``interact`` repository: ``src/interact.py``,
``src/agent.py``, ``src/tasks.py``, ``src/utils.py`` and its README), one entry per row of the PXP tables: what
the cell must say. Where the scripts have no code for a row (the README counted the strong rows by hand; no script
computes a median, draws a curve or compares experts), the cell must say "none", never "the same". A row added to
the tables without an entry here fails, so that every cell is checked against the scripts once.
"""

from __future__ import annotations

from ..conftest import ROOT

#: row -> what its reference cell says (a phrase it must contain)
REFERENCE = {
    # protocol and definitions
    "tag-table": "the same table (`Agent.__call__`)",
    "reject-after-k": "the same (`j > k`)",
    "init": "the same (`j == 1`",
    "stop-rule": '"has ever ratified" instead of the latest tags; a machine REJECT does not end the session',
    "n": "counts cycles of the loop, not messages: its option --n N (default 3; the README's runs 5) allows `2N + 1` messages",
    "k": "3 (`Interact`'s default",
    "one-way": 'for the human, "the last human tag is RATIFY"; for the machine, a revision flag never reset',
    "two-way": "the conjunction of its two one-way counts",
    "strong": 'none (by hand: the README says the strong and ultra-strong counts were "manually extracted")',
    "init-excluded": "none (by hand)",
    "human-revise": "the static human's answer never changes",
    "match-rad": "a substring test: the lower-cased prediction and label are equal, or either contains the other",
    "rad-unnamed": 'its parser takes any text after "Prediction:"',
    "match-drug": "any canonical SMILES in common, or an identical Morgan fingerprint (radius 2, 1024 bits)",
    "agree-prompt": "a task-specific prompt (`RAD.agree`, `DRUG.agree`)",
    "context": "holds texts only",
    "sessions": "the training split",
    "human-seat": "its option --human_type: static (the proxy) or real-time",
    "estimate": "prints the counts; computes no proportion",
    # settings of the experiments
    "task-rad": "the same",
    "task-drug": "retrosynthesis of `retro.csv`",
    "models": "claude-3-sonnet-20240229",
    "temperature": "none sent (the provider's default); every machine call sends `seed=42`",
    "model-seed": "`seed=42` in every call",
    "max-tokens": "300 for RAD, 1024 for DRUG",
    "checker-settings": "temperature 0 and `seed=42`; no max_tokens",
    "repetitions": "none: one run per command",
    "dataset-rad": "20 training cases (`train_xray_data.csv`, labels 6/6/5/2/1) and 27 validation cases",
    "dataset-drug": "shuffled by `sample(frac=1, random_state=42)`",
    "prompts": "each message phrased by its tag",
    "rad-prediction": "the disease",
    "learn-gate": "decide whether the session's context is kept; its option --no_learn keeps every session",
    "learn-revise": "the gate runs after the session",
    "learn-metric": '"overall accuracy": MATCH and AGREE both',
    "learn-rule": "keeps a session when accuracy does not drop",
    "learn-first": "the first session is always kept",
    "machine-performance": "DRUG only, on its test split",
    # tables and figures
    "table": "four of the seven rows, printed as counts (total, one-way human, one-way machine, two-way); the four strong rows none (by hand)",
    "medians": "none (by hand)",
    "curves": "none (by hand",
    "report-columns": "none",
    "no-pooling": "none",
    "expert-agreement": "none",
    "performance-figure": "none",
}
#: the rows for which the scripts have no code
NO_CODE = {"strong", "init-excluded", "repetitions", "medians", "curves", "report-columns", "no-pooling",
           "expert-agreement", "performance-figure"}  # fmt: skip


def cells(line: str) -> list[str]:
    """A Markdown table row's cells, a ``|`` inside backquotes or escaped kept in its cell."""
    out, cell, quoted = [], "", False
    for i, ch in enumerate(line.strip().strip("|")):
        if ch == "`":
            quoted = not quoted
        if ch == "|" and not quoted and line.strip().strip("|")[i - 1 : i] != "\\":
            out.append(cell.strip())
            cell = ""
        else:
            cell += ch
    return [*out, cell.strip()]


def rows(section: str) -> dict[str, list[str]]:
    """Row id -> its cells, for the tables of the section of docs/FIDELITY.md headed ``section``."""
    text = (ROOT / "docs" / "FIDELITY.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    found = [cells(line) for line in body.splitlines() if line.startswith("| ")]
    return {row[0].strip("`"): row for row in found if row[0] not in ("id", "item") and not set(row[0]) <= set("-: ")}


def test_every_reference_cell_of_the_pxp_tables_says_what_the_scripts_do() -> None:
    found = rows("PXP")
    assert set(found) - set(REFERENCE) == set(), "rows with no entry in REFERENCE: read the scripts and add one"
    assert set(REFERENCE) - set(found) == set(), "entries of REFERENCE for rows docs/FIDELITY.md no longer has"
    for row, phrase in REFERENCE.items():
        reference = found[row][2]
        assert phrase in reference, f"row {row}: the reference cell says {reference!r}, not {phrase!r}"
        if row in NO_CODE:
            assert reference.startswith("none") and "the same" not in reference, f"row {row}: the scripts have no code"


def test_no_cell_is_blank_and_evince_has_no_scripts() -> None:
    for section in ("PXP", "EVINCE"):
        for row, found in rows(section).items():
            assert len(found) == 6 and found[2], f"row {row} of {section}: {found}"
    assert {found[2] for found in rows("EVINCE").values()} == {"none"}
