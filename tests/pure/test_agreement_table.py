"""The agreement between experts as a reader of the report sees it: the table's headings in Markdown and in the CSV a
spreadsheet opens, and which replies count (an expert's, on a task another expert answered too)."""

from __future__ import annotations

import csv
import io
import warnings
from typing import Any

from pxp_harness.records import a_run as run
from pxp_tui.common.kinds import HumanKind
from pxp_tui.report.agreement import between, kappa, rows
from pxp_tui.report.render import csv_text, markdown_table

HEADINGS = [
    "task", "expert", "expert", "measure", "same opening: instances", "Cohen's kappa", "raw agreement",
    "all shared: instances", "Cohen's kappa", "raw agreement",
]  # fmt: skip


def reply(run_id: int, instance: int, tag: str, prediction: str = "CCO") -> dict[str, Any]:
    return {"run_id": run_id, "instance_id": instance, "tag": tag, "prediction": prediction,
            "opening_prediction": "CCO", "opening_explanation": "an opening"}  # fmt: skip


def same(task: str, prediction: str) -> str:  # MATCH's canonical form, for these tests: case does not count
    return prediction.upper()


def two_experts() -> list[Any]:
    """h1 and h2 on DRUG instances 1-3 (tags RATIFY, RATIFY, REFUTE against RATIFY, REFUTE, REFUTE)."""
    runs = [run(1, "drug", "h1"), run(2, "drug", "h2")]
    replies = [reply(1, i, t) for i, t in enumerate(["RATIFY", "RATIFY", "REFUTE"], 1)]
    replies += [reply(2, i, t) for i, t in enumerate(["RATIFY", "REFUTE", "REFUTE"], 1)]
    return between(runs, replies, same)


def test_the_agreement_table_reads_with_its_headings_in_markdown_and_in_the_csv() -> None:
    table = rows(two_experts())
    header = markdown_table(table, right_from=4).split("\n")[0]
    assert [c.strip() for c in header.strip("|").split("|")] == HEADINGS
    csv_header = next(csv.reader(io.StringIO(csv_text(table))))
    assert [c.strip() for c in csv_header] == HEADINGS
    assert len(set(csv_header)) == len(csv_header)  # a spreadsheet's columns each have a name of their own
    # observed 2/3; by chance (2/3)(1/3) + (1/3)(2/3) = 4/9; kappa (2/3 - 4/9) / (1 - 4/9) = 0.40
    assert table[1] == ["DRUG", "h1", "h2", "tag", 3, "0.40", "0.67", 3, "0.40", "0.67"]


def test_a_proxy_run_met_first_does_not_hide_the_experts_after_it() -> None:
    runs = [run(1, "drug", None, HumanKind.PROXY), run(2, "drug", "h1"), run(3, "drug", "h2")]
    replies = [reply(1, 1, "RATIFY"), reply(2, 1, "RATIFY"), reply(3, 1, "REFUTE")]
    assert [(a.first, a.second, a.shared) for a in between(runs, replies, same)] == [("h1", "h2", 1)]


def test_experts_on_another_task_met_first_do_not_hide_a_pair_on_one_task() -> None:
    """h1 (DRUG), h3 (RAD), then h2 (DRUG): the pair h1/h3 spans two tasks and is skipped; h1/h2 is compared."""
    runs = [run(1, "drug", "h1"), run(2, "rad", "h3"), run(3, "drug", "h2")]
    replies = [reply(1, 1, "RATIFY"), reply(2, 1, "RATIFY"), reply(3, 1, "RATIFY")]
    assert [(a.task, a.first, a.second) for a in between(runs, replies, same)] == [("drug", "h1", "h2")]


def test_predictions_agree_as_match_compares_them_and_an_experts_first_answer_counts() -> None:
    runs = [run(1, "drug", "h1"), run(2, "drug", "h2")]
    replies = [reply(1, 1, "RATIFY", "cco"), reply(1, 1, "REFUTE", "CCN"), reply(2, 1, "RATIFY", "CCO")]
    (found,) = between(runs, replies, same)
    assert found.measures["prediction"][1] == (None, 1.0)  # one label throughout: kappa undefined, raw 1
    assert found.measures["tag"][1] == (None, 1.0)


def test_an_undefined_kappa_prints_no_warning_on_the_terminal() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kappa(["RATIFY", "RATIFY"], ["RATIFY", "RATIFY"]) is None
        assert kappa(["RATIFY", "REFUTE"], ["RATIFY", "RATIFY"]) == 0.0
    assert [str(w.message) for w in caught] == []


def test_two_experts_with_no_instance_in_common_do_not_hide_a_pair_after_them() -> None:
    runs = [run(1, "drug", "h1"), run(2, "drug", "h3"), run(3, "drug", "h2")]
    replies = [reply(1, 1, "RATIFY"), reply(2, 2, "RATIFY"), reply(3, 1, "RATIFY")]
    assert [(a.first, a.second) for a in between(runs, replies, same)] == [("h1", "h2")]
