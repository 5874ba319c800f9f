"""Import hygiene: the layer contracts of pyproject.toml ([tool.importlinter], docs/ARCHITECTURE.md) hold,
and they fail on the imports they forbid, however written (absolute, relative, ``from pxp_tui import X``)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

from ..conftest import ROOT

pytest.importorskip("importlinter", reason="import-linter is a development tool (pip install import-linter)")

PACKAGE = ROOT / "pxp_tui"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts (this project's pyproject.toml) checked on the package under ``root``."""
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(config_filename=sys.argv[1]))"
    return subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "pyproject.toml")],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": "300"},  # one line per contract
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_layer_contracts_hold() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def layer_names(contract_id: str) -> set[str]:
    (layers,) = [c["layers"] for c in CONFIG["contracts"] if c["id"] == contract_id]
    return {name.strip().removeprefix("pxp_tui.") for layer in layers for name in layer.split("|")}


def packages(folder: Path) -> set[str]:
    """The packages and modules in ``folder`` (not its ``__init__``)."""
    found = {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return found | {p.stem for p in folder.glob("*.py")} - {"__init__", "__main__"}


def test_every_package_is_in_a_layer() -> None:
    assert packages(PACKAGE) - {"assets"} == layer_names("layers")


def test_every_module_of_the_app_is_in_a_group() -> None:
    assert packages(PACKAGE / "app") == layer_names("app-groups")


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("engine/interact.py", "from pxp_tui import app", "Layers"),
        ("engine/interact.py", "from ..cli import main", "Layers"),
        ("protocol/rules.py", "from pxp_tui.common import models", "Layers"),  # siblings at the bottom
        ("blackboard/store.py", "from pxp_tui.runs.create import create_run", "Layers"),
        ("tasks/base.py", "from textual.widgets import Static", "Textual"),
        ("engine/types.py", "import sqlite_utils", "no storage, model, UI or chemistry"),
        ("common/models.py", "from rdkit import Chem", "no storage, model, UI or chemistry"),
        ("blackboard/review.py", "from ..agents.llm import LLMClient", "call no model"),
        ("tasks/__init__.py", "from pxp_tui.agents import offline", "call no model"),  # registered by runs.seats
        ("config.py", "from pxp_tui.blackboard import Blackboard", "Layers"),
        ("agents/proxy.py", "import sqlite3", "neither store nor draw"),
        ("app/review/glyphs.py", "from pxp_tui.app.session import screen", "app's groups"),
        ("app/picture/zoom.py", "from ..session.screen import SessionScreen", "app's groups"),
        ("app/start/screen.py", "from pxp_tui.app.review import ReviewScreen", "app's groups"),  # siblings
        ("app/shared/css.py", "from pxp_tui.app.picture import graphics", "app's groups"),
        ("app/session/summary.py", "from pxp_tui.app.shell.pxp_app import PXPApp", "app's groups"),
        ("app/session/exchange.py", "from pxp_tui.engine.interact import stop_by_rule", "stop decision"),
        ("cli/printing.py", "from ..engine.interact import stop_by_rule", "stop decision"),
        ("app/shell/pxp_app.py", "from pxp_harness import waiting", "test harness"),
        ("cli/main.py", "from tests.conftest import ROOT", "test harness"),
    ],
)
def test_the_contracts_catch_a_forbidden_import(tmp_path: Path, module: str, line: str, contract: str) -> None:
    shutil.copytree(PACKAGE, tmp_path / "pxp_tui", ignore=shutil.ignore_patterns("__pycache__", "assets"))
    target = tmp_path / "pxp_tui" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef _probe() -> None:\n    {line}\n", encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode != 0, done.stdout
    broken = [text for text in done.stdout.splitlines() if text.endswith("BROKEN")]
    assert broken and contract in " ".join(broken), done.stdout


def test_litellm_is_never_imported_at_module_level() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # top level only; imports inside functions are lazy
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "litellm" or n.startswith("litellm.") for n in names):
                offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders
