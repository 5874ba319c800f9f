"""Benchmarks write their own figures into docs/performance.md: a block per benchmark, replaced in place,
the prose around it kept."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from .conftest import ROOT


def load():
    spec = importlib.util.spec_from_file_location("docs_section", ROOT / "benchmarks" / "docs_section.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_benchmark_replaces_its_own_block_and_keeps_the_rest(tmp_path) -> None:
    docs = load()
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\nProse kept by hand.\n")
    docs.write_section("writers", "Many writers", "| writers | msg/s |\n|---|---|\n| 1 | 10 |", command="python b.py", page=page)
    docs.write_section("other", "Other", "x = 1", command="python o.py", page=page)
    docs.write_section("writers", "Many writers", "| writers | msg/s |\n|---|---|\n| 1 | 20 |", command="python b.py", page=page)
    text = page.read_text()
    assert text.startswith("# Performance\n\nProse kept by hand.\n")
    assert text.count("<!-- benchmark:writers -->") == 1 and "| 1 | 20 |" in text and "| 1 | 10 |" not in text
    assert text.index("benchmark:writers") < text.index("benchmark:other")  # replaced in its place
    assert "Measured with `python b.py` on " in text and "cores" in text


def test_the_command_is_written_without_the_docs_flag() -> None:
    docs = load()
    line = docs.command_line([str(ROOT / "benchmarks" / "million.py"), "--runs", "2", "--docs"])
    assert line == "python benchmarks/million.py --runs 2"


def test_a_block_name_is_checked(tmp_path) -> None:
    with pytest.raises(ValueError, match="block name"):
        load().write_section("Bad Name", "t", "b", page=tmp_path / "p.md")


@pytest.mark.slow  # a benchmark's own process, building a blackboard
def test_a_benchmark_run_with_docs_writes_its_figures_command_and_machine_into_the_page(tmp_path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(
        "# Performance\n\nProse.\n\n<!-- benchmark:million -->\nold figures\n<!-- /benchmark:million -->\n\nMore prose.\n"
    )
    env = {**os.environ, "PXP_PERFORMANCE_PAGE": str(page)}
    command = [sys.executable, str(ROOT / "benchmarks" / "million.py"), "--runs", "2", "--sessions", "20", "--docs"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "old figures" not in text and text.startswith("# Performance\n\nProse.") and text.endswith("More prose.\n")
    block = text[text.index("<!-- benchmark:million -->") : text.index("<!-- /benchmark:million -->")]
    assert "### 2 runs of 20 sessions" in block
    assert "Measured with `python benchmarks/million.py --runs 2 --sessions 20` on " in block
    assert "| metrics: one run |" in block and "load average" in block
