"""A run's configuration has one shape from ``pxp run`` to the file and back: every field of :class:`RunConfig`
(those added later too) is stored and read back as it was given, in its column of ``runs`` or in ``options``."""

from __future__ import annotations

import json
import types
import typing
from dataclasses import fields, replace
from pathlib import Path

from pxp_tui.blackboard import Blackboard
from pxp_tui.blackboard.schema import TABLES
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import RunConfig
from pxp_tui.runs.create import create_run
from pxp_tui.tasks.base import DatasetRow


def unusual(name: str, hint: object) -> object:
    """A value of the field's type that is not its default (each field its own, so a mix-up shows)."""
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    kind = next(t for t in options if t is not type(None))
    values = {str: f"x-{name}", int: 7 + len(name), float: 0.25 + len(name) / 100, bool: True, HumanKind: HumanKind.MODEL,
              list: [f"x-{name}", "y"], dict: {"x": name, "n": [1, 2]}}  # fmt: skip
    return values[typing.get_origin(kind) or kind]


def every_field_set() -> RunConfig:
    hints = typing.get_type_hints(RunConfig)
    return RunConfig(**{f.name: unusual(f.name, hints[f.name]) for f in fields(RunConfig)})


def test_every_field_of_a_run_config_comes_back_from_the_file_as_it_was_stored(tmp_path: Path) -> None:
    config = every_field_set()
    with Blackboard.open(tmp_path / "board.db") as board:
        run_id = board.create_run(config, [])
    with Blackboard.open(tmp_path / "board.db", readonly=True) as board:  # another connection, as a reader reads it
        assert board.run(run_id).config == config


def test_a_field_goes_to_its_column_if_runs_has_one_else_to_options(tmp_path: Path) -> None:
    config = every_field_set()
    with Blackboard.open(tmp_path / "board.db") as board:
        run_id = board.create_run(config, [])
        row = next(board.db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
    columns = TABLES["runs"]["columns"]
    options = json.loads(row["options"])
    for f in fields(RunConfig):
        value = getattr(config, f.name)
        if f.name in columns:
            assert row[f.name] == (value.value if isinstance(value, HumanKind) else value) and f.name not in options
        else:
            assert options[f.name] == value


def test_a_run_made_from_the_defaults_reads_back_with_its_dataset_checker_and_context_named(tmp_path: Path) -> None:
    with Blackboard.open(tmp_path / "board.db") as board:
        run_id = create_run(board, RunConfig(limit=2, context="last:2"))
        run = board.run(run_id)
    effective = {
        "machine": {"model": "offline", "temperature": "provider default", "max_tokens": 1024},
        "checker": {"model": "offline", "temperature": 0, "max_tokens": 10},
        "learn": None,
        "prompts": "pxp",
        "rad_question": None,
        "drug_match": "same-set",
        "rad_unnamed": None,
    }  # every setting the models are called with
    assert run.config == replace(
        RunConfig(limit=2), dataset="demo-drug", checker="offline", context="last:2", ground_metric="discrete",
        effective=effective,
    )  # what runs.create resolved; nothing else changed  # fmt: skip
    assert (run.human, run.finished, len(run.plan)) == ("proxy", False, 2)


def test_a_null_column_reads_as_the_field_s_default_and_unknown_options_are_left_out(tmp_path: Path) -> None:
    """As in a file written before the column existed (read without migrating it), or by a newer pxp."""
    with Blackboard.open(tmp_path / "board.db") as board:
        board.add_dataset("d", "drug", [DatasetRow("k", "train", "CCO", "CC.O", "e")])
        run_id = board.create_run(RunConfig(dataset="d", stop="both", split="val"), board.instance_ids("d"))
        board.db.execute(
            "UPDATE runs SET stop = NULL, split = NULL, options = ? WHERE id = ?", ['{"from_the_future": 1}', run_id]
        )
        board.db.conn.commit()
        config = board.run(run_id).config
    assert (config.stop, config.split, config.dataset) == ("pxp", "train", "d")
