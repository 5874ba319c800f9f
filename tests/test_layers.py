"""Import hygiene: each layer imports only the layers below it (DESIGN.md section 5)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pxp_tui"

#: layer -> rank; a module may import from layers of lower or equal rank only
RANKS = {
    "protocol": 0,
    "common": 0,
    "engine": 1,
    "agents": 2,
    "tasks": 3,
    "blackboard": 4,
    "runs": 5,
    "report": 6,
    "app": 7,
    "cli": 8,
    "assets": 0,
}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "pxp_tui" or len(parts) < 2:
        return None
    return parts[1]


def imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def test_every_module_belongs_to_a_known_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if len(relative.parts) == 1 and relative.stem in ("__init__", "__main__"):
            continue
        assert relative.parts[0].removesuffix(".py") in RANKS, f"{relative}: unknown layer"


def test_no_layer_imports_a_layer_above_it() -> None:
    violations = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        own = relative.parts[0].removesuffix(".py")
        if own not in RANKS:
            continue
        for line, module in imports(path):
            other = layer_of(module)
            if other is not None and other in RANKS and RANKS[other] > RANKS[own]:
                violations.append(f"{relative}:{line} ({own}) imports {module} ({other})")
    assert not violations, "\n".join(violations)


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
