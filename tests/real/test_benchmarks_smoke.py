"""The benchmarks keep working: turn_latency.py prints its tables, the others theirs (no times asserted)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pxp_harness.terminal import needs_tmux

from ..conftest import ROOT

BENCHMARK = ROOT / "benchmarks" / "turn_latency.py"


def run_benchmark(name: str, *args: str, cwd) -> subprocess.CompletedProcess:
    """``python benchmarks/NAME ARGS`` as a maintainer runs it (offline machine, no simulated latency)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PXP_OFFLINE_LATENCY": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args], capture_output=True, text=True, env=env, timeout=600, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_turn_latency_runs_two_sessions_in_pilot_and_prints_its_tables(tmp_path) -> None:
    out = tmp_path / "steps.json"
    done = run_benchmark(
        BENCHMARK.name,
        *("--sessions", "2", "--task", "drug", "--size", "80x24", "--mode", "pilot", "--think", "0"),
        *("--litellm-calls", "2", "--json", str(out)),
        cwd=tmp_path,
    )
    text = done.stdout
    assert "DRUG 80x24, pilot: 2 steps" in text
    for row in (
        "(a) message committed",
        "(b) machine's reply on screen",
        "(c) next turn ready, pictures drawn",
        "where the time goes in (c)",
        "litellm on a quiet loop",
    ):
        assert row in text
    # every step reached the three milestones: n = 2 in each of the three rows
    for row in ("(a) message committed", "(b) machine's reply on screen (frame rendered)", "(c) next turn ready, pictures drawn"):
        line = next(line for line in text.splitlines() if line.startswith(row))
        assert line.split()[-1] == "2", line
    summary = text[text.index("summary:") :].splitlines()
    assert any(line.split()[:4] == ["drug", "80x24", "pilot", "2"] for line in summary), summary
    assert "ref ms" in summary[1] and "speed reference" in text  # the machine's speed beside the figures
    import json

    steps = json.loads(out.read_text())[0]["steps"]
    assert [(s["order"], s["j"], s["tag"]) for s in steps] == [(0, 2, "RATIFY"), (1, 2, "RATIFY")]


@pytest.mark.slow
@needs_tmux
def test_turn_latency_in_tmux_sees_each_frame_after_the_app_drew_it(tmp_path) -> None:
    """tmux mode times the screen by when tmux had the app's output (its %output notices), not by a poll: a
    time seen on the screen is never before the app drew that frame (the app's own stamps, in its process)."""
    import json

    out = tmp_path / "steps.json"
    done = run_benchmark(
        BENCHMARK.name,
        *("--sessions", "3", "--task", "drug", "--size", "80x24", "--mode", "tmux", "--think", "0.2"),
        *("--litellm-calls", "0", "--json", str(out)),
        cwd=tmp_path,
    )
    assert "(b) ... visible in tmux" in done.stdout
    steps = json.loads(out.read_text())[0]["steps"]
    assert len(steps) == 3
    for step in steps:
        assert step["screen_outcome"] >= step["outcome"] > 0, step
        assert step["screen_ready"] >= step["ready"] > 0, step


@pytest.mark.slow
def test_rdkit_limits_probes_rdkit_in_fresh_processes_and_prints_its_table(tmp_path) -> None:
    text = run_benchmark("rdkit_limits.py", "--quick", cwd=tmp_path).stdout
    assert "| chain | 500 | 0 | within the limits |" in text
    assert "| chain | 1,000 | 0 | 1,000 atoms, over the limit of 500 |" in text
    assert "| all-to-all cage | 16 | 105 | 105 ring closures, over the limit of 100 |" in text
    assert "Reading one SMILES through RDKit's worker process:" in text and "live check" in text


@pytest.mark.slow
def test_terminal_guard_times_the_watcher_and_the_first_paint_with_and_without_it(tmp_path) -> None:
    text = run_benchmark("terminal_guard.py", "--runs", "1", cwd=tmp_path).stdout
    assert "`guard()` in the app's process: median" in text
    assert "| with the watcher |" in text and "| without |" in text


def test_many_writers_runs_writer_processes_on_one_file_and_counts_every_message(tmp_path) -> None:
    done = run_benchmark(
        "many_writers.py", "--writers", "1,3", "--sessions", "1", "--instant-sessions", "5", "--import-pictures", "2",
        cwd=tmp_path,
    )  # fmt: skip
    table = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ") and line[2] != "-"]
    rows = [[cell.strip() for cell in row] for row in table[1:]]  # the header left out
    assert [(row[0].split(",")[0], row[1]) for row in rows] == [
        ("offline", "1"), ("offline", "3"), ("instant", "1"), ("instant", "3"), ("instant", "4")
    ], done.stdout  # fmt: skip
    assert "an import beside (2 pictures)" in rows[-1][0]
    for row in rows:
        writers, messages, failed = int(row[1]), int(row[2]), int(row[-1])
        assert failed == 0 and messages >= 2 * writers  # every writer's session: at least two messages


def test_first_message_presses_enter_at_pxp_s_first_frame_and_prints_its_table(tmp_path) -> None:
    text = run_benchmark("first_message.py", "--runs", "1", cwd=tmp_path).stdout
    assert "runs: " in text and "median" in text and "target: at most 1.0 s (median)" in text


@pytest.mark.slow
def test_the_browser_benchmark_times_a_page_load_and_keys_with_the_page_s_clock(tmp_path) -> None:
    from pxp_harness.browser import why_no_browser

    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    text = run_benchmark("browser.py", "--loads", "1", "--keys", "2", cwd=tmp_path).stdout
    rows = {line.split("|")[1].strip(): line.split("|")[2:5] for line in text.splitlines() if line.startswith("| ")}
    form = rows["page load to the start form drawn"]
    keys = rows["key (Tab) to the screen's change drawn"]
    assert [cell.strip() for cell in form][2] == "1" and [cell.strip() for cell in keys][2] == "2"  # each one measured
    assert float(form[0]) > 0 and float(keys[0]) > 0
