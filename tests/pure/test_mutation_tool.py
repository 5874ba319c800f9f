"""The mutation command's own parts (scripts/mutation.py, scripts/sql_mutants.py): the SQL mutants it makes, how it scores
and explains survivors, and that its configuration names files and tests that exist. (Running it is CI's mutation check.)"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

SCHEMA = {
    "messages": [("session_id", "INTEGER"), ("j", "INTEGER"), ("sender", "TEXT"), ("tag", "TEXT"), ("guard_match", "INTEGER")],
    "data": [("session_id", "INTEGER"), ("run_id", "INTEGER"), ("ord", "INTEGER"), ("stop_reason", "TEXT")],
}
SAMPLE = '''"""A module of SQL: AND this docstring is left alone."""

KINDS = {"good": "{m}.tag IN ('RATIFY', 'REVISE')"}


def query(agent: str, where: str) -> str:
    """SELECT nothing either: WHERE a = b."""
    return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' AND m.j >= 2 OR {where} ORDER BY m.j"


AGENT = "human"
MESSAGE = "the expert and the machine"
'''


@pytest.fixture
def tool(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    sql = importlib.import_module("sql_mutants")
    mutation = importlib.import_module("mutation")
    yield sql, mutation
    for name in ("sql_mutants", "mutation"):
        sys.modules.pop(name, None)


def test_each_sql_mutant_changes_one_thing_in_one_sql_text(tool, tmp_path: Path) -> None:
    sql, _ = tool
    path = tmp_path / "sample.py"
    path.write_text(SAMPLE)
    found = sql.mutants(path, "pxp_tui/sample.py", SCHEMA)
    changes = {(m.kind, m.now) for m in found}
    assert changes == {
        ("IN list", """KINDS = {"good": "{m}.tag NOT IN ('RATIFY', 'REVISE')"}"""),
        ("IN list", """KINDS = {"good": "{m}.tag IN ('REVISE')"}"""),
        ("IN list", """KINDS = {"good": "{m}.tag IN ('RATIFY')"}"""),
        (
            "column",
            '''return f"SELECT m.guard_match FROM messages m WHERE m.sender = '{agent}' AND m.j >= 2 OR {where} ORDER BY m.j"''',
        ),
        ("column", '''return f"SELECT m.j FROM messages m WHERE m.tag = '{agent}' AND m.j >= 2 OR {where} ORDER BY m.j"'''),
        (
            "comparison",
            '''return f"SELECT m.j FROM messages m WHERE m.sender <> '{agent}' AND m.j >= 2 OR {where} ORDER BY m.j"''',
        ),
        ("AND/OR", '''return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' OR m.j >= 2 OR {where} ORDER BY m.j"'''),
        (
            "column",
            '''return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' AND m.guard_match >= 2 OR {where} ORDER BY m.j"''',
        ),
        ("comparison", '''return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' AND m.j > 2 OR {where} ORDER BY m.j"'''),
        ("AND/OR", '''return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' AND m.j >= 2 AND {where} ORDER BY m.j"'''),
        (
            "column",
            '''return f"SELECT m.j FROM messages m WHERE m.sender = '{agent}' AND m.j >= 2 OR {where} ORDER BY m.guard_match"''',
        ),
        ("column", 'AGENT = "machine"'),
    }
    assert len(found) == len(changes)
    assert [m.name for m in found] == [f"pxp_tui.sample.sql__{i}" for i in range(1, len(found) + 1)]
    for mutant in found:
        ast.parse(mutant.source)  # still Python
        assert mutant.source.splitlines()[: mutant.line - 1] == SAMPLE.splitlines()[: mutant.line - 1]
        assert mutant.source.splitlines()[mutant.line :] == SAMPLE.splitlines()[mutant.line :]


def test_a_column_becomes_the_next_of_its_type_in_the_tables_its_alias_names(tool) -> None:
    sql, _ = tool
    assert sql.sibling(SCHEMA, {"messages"}, "j") == "guard_match"
    assert sql.sibling(SCHEMA, {"data"}, "session_id") == "run_id"
    assert sql.sibling(SCHEMA, None, "session_id") is None  # its tables disagree: left alone
    assert sql.sibling(SCHEMA, {"data"}, "stop_reason") is None  # no other TEXT column
    assert sql.aliases(["SELECT * FROM messages m JOIN data AS d ON d.session_id = m.session_id WHERE 1"]) == {
        "m": {"messages"},
        "d": {"data"},
    }


def mutant(mutation, status: str, module: str = "pxp_tui.protocol.rules", function: str = "stop_reason"):
    return mutation.Mutant(f"{module}.{function}__1", "protocol", module, f"{module}.{function}", status, "if a:", "if not a:")


def test_the_score_leaves_out_the_listed_equivalent_mutants_and_a_group_below_target_fails(tool) -> None:
    _, mutation = tool
    found = [mutant(mutation, "killed") for _ in range(17)] + [mutant(mutation, "timeout")]
    found += [mutant(mutation, "survived"), mutant(mutation, "no tests", "pxp_tui.protocol.tags", "Tag.parse")]
    listed = [
        {"function": "pxp_tui.protocol.rules.stop_reason", "was": "if  a:", "now": "if not a:", "why": "the same"},
        {"function": "pxp_tui.protocol.rules.stop_reason", "was": "if b:", "now": "if not b:", "why": "gone"},
    ]
    unused = mutation.explain(found, listed)
    assert [e["was"] for e in unused] == ["if b:"]
    assert found[-2].why == "the same" and found[-1].why is None  # the no-tests mutant is another function's
    groups = [mutation.Group("protocol", True, (), {}, ())]
    body, missed = mutation.report(found, groups, {"protocol": 95, "all": 90}, whole=True)
    assert "| protocol | 20 | 18 | 1 | 1 | 94.7% | 95% |" in body
    assert "| all | 20 | 18 | 1 | 1 | 94.7% | 90% |" in body
    assert "| `pxp_tui.protocol.tags` | 1 | 0 | 0 | 1 | 0.0% |" in body
    assert missed == ["protocol: 94.7% < 95%"]


def test_the_configuration_names_files_and_tests_that_exist_and_the_targets_of_the_design(tool) -> None:
    _, mutation = tool
    config = mutation.tomllib.loads(mutation.CONFIG.read_text())
    assert config["targets"] == {"protocol": 95, "tables": 95, "all": 90}  # DESIGN.md section 6
    groups = mutation.groups(config)
    assert "protocol" in {g.name for g in groups if g.ci}  # what .ci/run checks: the protocol at least
    for group in groups:
        assert group.mutate or group.sql
        for path, patterns in mutation.mutmut_targets(group):
            assert (ROOT / path).is_file() and patterns
            source = ast.parse((ROOT / path).read_text())
            defined = {n.name for n in ast.walk(source) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for pattern in patterns:  # a function named in the configuration exists in its file
                name = pattern.rsplit(".", 1)[1].removesuffix("__mutmut_*").split("ǁ")[-1].removeprefix("x_")
                assert name == "*" or name in defined, (path, name)
        for path, tests in group.sql.items():
            assert (ROOT / path).is_file()
            for name in tests:
                assert (ROOT / mutation.test_file(name)).is_file()
        for name in group.tests:
            assert (ROOT / mutation.test_file(name)).is_file()


def test_every_listed_equivalent_mutant_says_where_what_and_why(tool) -> None:
    _, mutation = tool
    listed = mutation.tomllib.loads(mutation.EQUIVALENTS.read_text()).get("equivalent", [])
    for entry in listed:
        assert set(entry) == {"function", "was", "now", "why"}, entry
        assert all(entry[key].strip() for key in ("function", "was", "why")), entry
        parts = entry["function"].split(".")
        files = [ROOT.joinpath(*parts[:i]).with_suffix(".py") for i in range(len(parts), 1, -1)]
        source = " ".join(next(f for f in files if f.is_file()).read_text().split())
        for line in entry["was"].split(" ⏎ "):  # the lines as they were are the file's
            assert " ".join(line.split()) in source, entry


def test_jobs_below_one_are_refused_before_any_work(tool) -> None:
    _, mutation = tool
    with pytest.raises(SystemExit) as refused:
        mutation.main(["--group", "protocol", "--jobs", "0"])
    assert str(refused.value) == "mutation: --jobs must be at least 1, got 0"


def test_a_survivor_shows_the_line_its_mutant_changed_even_in_the_def_line(tool, tmp_path: Path) -> None:
    written = tmp_path / "module.py"
    written.write_text(
        "def x_table__mutmut_orig(rows, *, right_from=1):\n    return rows[right_from:]\n\n\n"
        "def x_table__mutmut_1(rows, *, right_from=2):\n    return rows[right_from:]\n\n\n"
        "def x_table__mutmut_2(rows, *, right_from=1):\n    return rows[right_from + 1:]\n",
        encoding="utf-8",
    )
    _, mutation = tool
    functions = mutation._functions(written)
    orig = functions["x_table__mutmut_orig"]
    assert mutation._diff(orig, functions["x_table__mutmut_1"]) == (
        "def function(rows, *, right_from=1):",
        "def function(rows, *, right_from=2):",
    )
    assert mutation._diff(orig, functions["x_table__mutmut_2"]) == ("return rows[right_from:]", "return rows[right_from + 1:]")
