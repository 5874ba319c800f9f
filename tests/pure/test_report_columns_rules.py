"""Which runs may share a column of the report, and what a researcher who asks for the impossible is told."""

from __future__ import annotations

import pytest

from pxp_harness.records import a_run
from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.report.columns import columns, differences, named_columns, select


def test_runs_differing_in_any_field_of_their_configuration_are_not_repetitions() -> None:
    base = a_run(1)
    for field, value in (("dataset", "other"), ("k", 4), ("split", "test"), ("max_tokens", 99), ("temperature", 0.5)):
        other = a_run(2, **{field: value})
        assert list(differences([base, other])) == [field], field


def test_runs_differing_only_in_how_they_were_named_or_reached_are_repetitions() -> None:
    assert differences([a_run(1, seed=1, experiment="E"), a_run(2, seed=2, timeout=30.0, api_base="http://x")]) == {}


def test_a_report_asked_for_runs_and_an_experiment_at_once_or_an_unknown_grouping_says_what_to_give() -> None:
    with Blackboard.memory() as board:
        with pytest.raises(BlackboardError) as said:
            select(board, [1], "E")
        assert str(said.value) == "give runs or an experiment, not both"
        with pytest.raises(BlackboardError) as said:
            select(board, None, "E")
        assert str(said.value) == "no experiment 'E' in the blackboard"
        with pytest.raises(BlackboardError) as said:
            columns(board, [], by="day")
        assert str(said.value) == "group by one of run, experiment, expert, not 'day'"


def test_columns_are_one_per_run_unless_asked_and_an_unknown_column_names_the_blackboard() -> None:
    with Blackboard.memory() as board:
        assert columns(board, []) == []
        with pytest.raises(BlackboardError) as said:
            named_columns(board, ["A=nope"])
        assert str(said.value) == "--column: 'nope' is neither a run id nor an experiment of the blackboard"
