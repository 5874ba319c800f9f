"""Benchmarks write their own figures into docs/performance.md: a block per benchmark, replaced in place,
the prose around it kept."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys

import pytest

from ..conftest import ROOT


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


def quiet_or_busy(monkeypatch, docs, started: float, ended: float, page) -> None:
    """``docs`` (the module) seeing these loads on a machine of 2 cores, ``page`` standing for docs/performance.md."""
    monkeypatch.setattr(docs, "STARTED", started)
    monkeypatch.setattr(docs, "load_average", lambda: ended)
    monkeypatch.setattr(docs, "cores", lambda: 2)
    monkeypatch.setattr(docs, "DOCS_PAGE", page)


@pytest.mark.parametrize(("started", "ended"), [(2.6, 0.4), (0.4, 2.1)], ids=["busy at the start", "busy at the end"])
def test_the_page_is_not_written_when_the_load_was_over_the_cores(tmp_path, monkeypatch, started, ended) -> None:
    docs = load()
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\n<!-- benchmark:engine -->\nquiet figures\n<!-- /benchmark:engine -->\n")
    quiet_or_busy(monkeypatch, docs, started, ended, page)
    with pytest.raises(SystemExit) as refused:
        docs.write_section("engine", "Engine", "| noisy | figures |", command="python e.py", page=page)
    said = str(refused.value)
    assert "not written" in said and f"{started:.1f} at the start and {ended:.1f} at the end" in said and "2 cores" in said
    assert page.read_text() == "# Performance\n\n<!-- benchmark:engine -->\nquiet figures\n<!-- /benchmark:engine -->\n"


def test_figures_from_a_quiet_machine_are_written_with_the_load_at_the_start_and_the_end(tmp_path, monkeypatch) -> None:
    docs = load()
    page = tmp_path / "performance.md"
    quiet_or_busy(monkeypatch, docs, 1.5, 2.0, page)  # at most the core count: quiet enough
    docs.write_section("engine", "Engine", "| quiet | figures |", command="python e.py", page=page)
    assert "| quiet | figures |\n\nLoad average 1.5 at the start, 2.0 at the end (2 cores).\n<!-- /benchmark:engine -->" in (
        page.read_text()
    )


def test_a_benchmark_whose_own_processes_load_the_cores_is_judged_by_the_load_before_it(tmp_path, monkeypatch) -> None:
    """A browser benchmark runs Chromium, the server and an app per tab: the load at its end is its own, and said to
    be; a machine already busy when it starts is still refused."""
    docs = load()
    page = tmp_path / "performance.md"
    quiet_or_busy(monkeypatch, docs, 0.3, 2.5, page)
    docs.write_section("browser", "Browser", "| page | figures |", command="python b.py", page=page, own_load="Chromium")
    assert "Load average 0.3 at the start, 2.5 at the end (with Chromium running) (2 cores)." in page.read_text()
    quiet_or_busy(monkeypatch, docs, 2.6, 0.4, page)
    with pytest.raises(SystemExit):
        docs.write_section("browser", "Browser", "| noisy | figures |", command="python b.py", page=page, own_load="Chromium")
    assert "| page | figures |" in page.read_text()


def test_another_page_is_written_whatever_the_load_saying_it(tmp_path, monkeypatch) -> None:
    """The tests' pages (PXP_PERFORMANCE_PAGE) are no published figures: written, the load stated."""
    docs = load()
    quiet_or_busy(monkeypatch, docs, 9.0, 7.5, tmp_path / "performance.md")
    other = tmp_path / "other.md"
    docs.write_section("engine", "Engine", "x", command="python e.py", page=other)
    assert "Load average 9.0 at the start, 7.5 at the end (2 cores)." in other.read_text()


def test_every_benchmark_that_writes_the_page_reads_the_load_as_it_starts() -> None:
    """The load at the start is read when docs_section is imported: each benchmark that writes a block imports it
    at its top, not where it writes (after its measurements)."""
    late = []
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(script.read_text())
        if script.name == "docs_section.py" or "write_section" not in script.read_text():
            continue
        top = [
            node
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module in ("docs_section", "benchmarks.docs_section")
        ]
        if not top:
            late.append(script.name)
    assert late == [], f"import docs_section at the top of: {', '.join(late)}"


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
    assert "| metrics: one run |" in block and "Load average " in block and " at the end (" in block
