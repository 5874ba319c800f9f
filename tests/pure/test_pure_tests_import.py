"""The pure tier runs without the heavy imports: the quick edit loop of the protocol's rules.

Run as a developer runs it (``pytest tests/pure/test_protocol_rules.py``, in a process of its own), the modules imported
by the end are counted: neither litellm (only the app tier's conftest imports it) nor all of Hypothesis (its pytest
plugin is left out in pyproject.toml) nor RDKit. Every file of tests/pure is collected without pxp's app, agents,
command line or runs, and imports none of them in a test either. A Hypothesis test still reports its falsifying
example without the plugin.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RUN = """
import json, sys
import pytest
code = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]])
print(json.dumps({"code": int(code), "modules": sorted(sys.modules)}))
"""


def pytest_alone(*args: str, cwd: Path = ROOT) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", RUN, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stdout


def test_the_protocol_rules_run_alone_without_litellm_hypothesis_or_rdkit() -> None:
    seen, out = pytest_alone("tests/pure/test_protocol_rules.py")
    assert seen["code"] == 0, out[-2000:]
    heavy = {"litellm", "hypothesis", "rdkit", "pxp_tui.agents", "pxp_tui.app"}
    assert heavy.isdisjoint(seen["modules"]), sorted(heavy & set(seen["modules"]))


#: what a test of the pure tier never imports: pxp's app, agents, command line and runs (which reach the agents), litellm,
#: and the harness's helpers for them
NOT_PURE = ("pxp_tui.app", "pxp_tui.agents", "pxp_tui.cli", "pxp_tui.runs", "litellm", "textual", "pxp_harness.app_helpers")
NOT_PURE += ("pxp_harness.cli_helpers",)


def _not_pure(modules: list[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(NOT_PURE) and m.split(".")[0] != "textual")


def test_the_pure_tier_is_collected_without_the_app_the_agents_or_litellm() -> None:
    seen, out = pytest_alone("--collect-only", "-m", "not slow", "tests/pure")
    assert seen["code"] == 0, out[-2000:]
    assert "litellm" not in seen["modules"]
    assert _not_pure(seen["modules"]) == [], out[-2000:]


def test_no_test_of_the_pure_tier_imports_the_app_the_agents_or_litellm_when_it_runs() -> None:
    found = []
    for path in sorted((ROOT / "tests" / "pure").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [f"{path.name}:{node.lineno}: {name}" for name in names if name.startswith(NOT_PURE)]
    assert found == []


def test_a_hypothesis_test_without_its_plugin_still_says_its_falsifying_example(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "test_bound.py").write_text(
        "from hypothesis import given, strategies as st\n\n"
        "@given(st.integers(min_value=0))\n"
        "def test_below_a_thousand(x):\n"
        "    assert x < 1000\n"
    )
    seen, out = pytest_alone("test_bound.py", cwd=tmp_path)
    assert seen["code"] == 1
    assert "x=1000" in out  # the smallest example Hypothesis found, shown to the developer
    assert "_hypothesis_pytestplugin" not in seen["modules"]
