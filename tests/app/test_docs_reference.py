"""The docs' reference tables are the code's: the key table, the option tables, the session's states and the presets'
settings in docs/ are the blocks ``scripts/docs_reference.py`` writes, and its ``--check`` fails, naming the block,
when one differs (a row cut from the key table, a default changed by hand)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import pytest

from ..conftest import ROOT

SCRIPT = ROOT / "scripts" / "docs_reference.py"


def load():
    spec = importlib.util.spec_from_file_location("docs_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def docs_copy(tmp_path):
    """A copy of the pages with reference blocks, for the check to read and the test to spoil."""
    for page, _ in load().BLOCKS.values():
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
    return tmp_path


class Result:
    def __init__(self, returncode: int, stderr: str) -> None:
        self.returncode, self.stderr = returncode, stderr


def run(capsys, *args: str) -> Result:
    """The script's command, in this process (the app's modules imported once for every test)."""
    try:
        code = load().main([*args])
    except SystemExit as exc:  # a page without a block's markers
        code = 2
        print(exc, file=sys.stderr)
    return Result(code, capsys.readouterr().err)


def check(capsys, root) -> Result:
    return run(capsys, "--check", "--root", str(root))


def test_the_docs_as_committed_are_what_the_code_writes() -> None:
    """As CI runs it: the command after ``<!-- docs-check-command -->`` in CONTRIBUTING.md, in its own process."""
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_cutting_a_row_from_the_key_table_fails_the_check_naming_the_block(docs_copy, capsys) -> None:
    keys = docs_copy / "docs" / "keys.md"
    text = keys.read_text()
    row = next(line for line in text.splitlines() if "`session.note`" in line)
    keys.write_text(text.replace(row + "\n", ""))
    result = check(capsys, docs_copy)
    assert result.returncode == 1
    assert "docs/keys.md: reference:keys" in result.stderr and "reference:presets" not in result.stderr
    assert run(capsys, "--root", str(docs_copy)).returncode == 0
    assert row in keys.read_text() and check(capsys, docs_copy).returncode == 0  # written again, the row is back


def test_a_default_changed_by_hand_in_an_option_table_fails_the_check(docs_copy, capsys) -> None:
    page = docs_copy / "docs" / "machine-machine.md"
    page.write_text(page.read_text().replace("| `--stop-tolerance X` | `0.01` |", "| `--stop-tolerance X` | `0.05` |"))
    result = check(capsys, docs_copy)
    assert result.returncode == 1 and "docs/machine-machine.md: reference:run-evince" in result.stderr


def test_the_state_table_has_a_row_for_every_move_the_screen_allows() -> None:
    from pxp_tui.app.session.states import TRANSITIONS, WHY

    block = load().states_block()
    moves = {(source, target) for source, targets in TRANSITIONS.items() for target in targets}
    assert set(WHY) == moves  # every move has its reason, and nothing else has one
    for (source, target), why in WHY.items():
        assert any(
            f"`{target.value}` | {why} |" in line and (f"`{source.value}`" in line or "every state" in line)
            for line in block.splitlines()
        )


def test_a_page_without_the_blocks_markers_is_named(docs_copy, capsys) -> None:
    page = docs_copy / "docs" / "ARCHITECTURE.md"
    page.write_text(page.read_text().replace("<!-- reference:states -->\n", ""))
    result = check(capsys, docs_copy)
    assert result.returncode != 0 and "docs/ARCHITECTURE.md" in result.stderr and "reference:states" in result.stderr
