"""Benchmarks write their own figures into docs/performance.md: a block per benchmark, replaced in place,
the prose around it kept."""

from __future__ import annotations

import importlib.util

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
