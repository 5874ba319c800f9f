"""A file of pure tests runs alone without the heavy imports: the quick edit loop of the protocol's rules.

Run as a developer runs it (``pytest tests/test_protocol_rules.py``, in a process of its own), the modules imported
by the end are counted: neither litellm (only where the tests collected can call a model: tests/conftest.py) nor all of
Hypothesis (its pytest plugin is left out in pyproject.toml) nor RDKit. A Hypothesis test still reports its
falsifying example without the plugin.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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
    seen, out = pytest_alone("tests/test_protocol_rules.py")
    assert seen["code"] == 0, out[-2000:]
    heavy = {"litellm", "hypothesis", "rdkit", "pxp_tui.agents", "pxp_tui.app"}
    assert heavy.isdisjoint(seen["modules"]), sorted(heavy & set(seen["modules"]))


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
