"""The dependencies' lower bounds are releases the suite was run with: `.ci/oldest.txt` pins each one.

CONTRIBUTING.md's oldest-test-command (CI runs it) installs the project with `.ci/oldest.txt` as pip's
constraints and runs the quick tier. These tests keep that file and `pyproject.toml` saying the same:
a bound raised in one and not the other, or a new dependency without a tested oldest release, fails here.
"""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from ..conftest import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11


def dependencies() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {(r := Requirement(line)).name.lower(): r for line in project["dependencies"]}


def oldest() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / ".ci" / "oldest.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower()] = Version(version.strip())
    return pins


def lower_bound(requirement: Requirement) -> Version | None:
    bounds = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
    return max(bounds) if bounds else None


def test_every_dependency_has_a_lower_bound_pinned_in_the_oldest_set() -> None:
    pins = oldest()
    for name, requirement in dependencies().items():
        bound = lower_bound(requirement)
        assert bound is not None, f"{name}: no lower bound in pyproject.toml"
        assert name in pins, f"{name}: its oldest release is not in .ci/oldest.txt, so it is never tested"
        assert pins[name] == bound, f"{name}: pyproject.toml says >={bound}, .ci/oldest.txt tests {pins[name]}"


def test_the_oldest_set_names_only_dependencies_and_fits_their_ranges() -> None:
    required = dependencies()
    for name, version in oldest().items():
        assert name in required, f".ci/oldest.txt pins {name}, which pyproject.toml does not depend on"
        assert required[name].specifier.contains(version), f"{name}=={version} is outside {required[name].specifier}"
