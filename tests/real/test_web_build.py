"""The page's terminal shipped in the package (``pxp_tui/app/shell/web/static``) is what ``scripts/build_web.py``
builds from ``web/package-lock.json`` and ``web/src``: nobody's edit by hand, nothing stale.

Needs node and ``web/node_modules`` (``python scripts/build_web.py --install``; ``.ci/run`` installs both): skipped,
saying which, where either is missing. The build itself reaches no network.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_web", ROOT / "scripts" / "build_web.py")
assert _spec is not None and _spec.loader is not None
build_web = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_web)


@pytest.mark.skipif(build_web.why_not_buildable() is not None, reason=build_web.why_not_buildable() or "")
def test_the_shipped_terminal_is_what_the_script_builds_from_the_lockfile(tmp_path: Path) -> None:
    built = build_web.build(tmp_path)
    for path in built:
        shipped = build_web.SHIPPED / path.name
        assert shipped.exists(), f"{shipped} is not shipped: run python scripts/build_web.py"
        assert shipped.read_bytes() == path.read_bytes(), (
            f"{shipped} is not what the script builds: run python scripts/build_web.py"
        )


def test_the_lockfile_pins_what_the_page_is_built_from_and_the_package_ships_it() -> None:
    """Every package the page imports is pinned in the lockfile (an exact version, an integrity hash), and the built
    files are package data (a user installs no Node)."""
    import re

    lock = json.loads((build_web.WEB / "package-lock.json").read_text())
    wanted = json.loads((build_web.WEB / "package.json").read_text())["devDependencies"]
    imported = set(re.findall(r'from "([^"]+)"', (build_web.WEB / "src" / "terminal.js").read_text()))
    assert imported and imported <= set(wanted)
    for name, version in wanted.items():
        entry = lock["packages"][f"node_modules/{name}"]
        assert entry["version"] == version and entry["integrity"].startswith("sha512-")
    package_data = re.search(r'^"pxp_tui\.app\.shell" = \[(.*)\]', (ROOT / "pyproject.toml").read_text(), re.M)
    assert package_data is not None and {'"web/static/*"', '"web/templates/*.html"'} <= set(
        package_data[1].replace(" ", "").split(",")
    )
    assert {path.name for path in build_web.SHIPPED.iterdir()} == {"terminal.js", "xterm.css"}
