"""Where RDKit crashes or runs away on large SMILES, and what reading a SMILES in its worker process costs.

    python benchmarks/rdkit_limits.py [--quick] [--docs]

Each probe runs in a fresh process (a crash there is a result, not the end of the benchmark), with a
time limit: RDKit reads the SMILES (``MolFromSmiles``), writes its canonical SMILES (what pxp compares),
and computes 2D coordinates (what drawing it starts with). Shapes: a chain ``CCCC...``, nested branches
``C(C(C(...)))``, and a dense cage of uranium atoms bonded all to all by ring closures (``[U]%(1)%(2)...``,
the worst case for ring closures). Then the cost of reading a SMILES through the worker process
(``pxp_tui.tasks.drug.reader``) against reading it in the calling process, and the expert's live check
(``validate_prediction`` of a new two-molecule answer, as each key typed makes one).

``--quick`` leaves out the probes that take minutes; ``--docs`` writes the figures into
docs/reliability.md (its ``rdkit-limits`` block).
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs_section import ROOT, write_section

PAGE = ROOT / "docs" / "reliability.md"
LIMIT_S = 120.0

_PROBE = """
import json, sys, time
from rdkit import Chem, rdBase
from rdkit.Chem import rdDepictor
rdBase.DisableLog("rdApp.*")
smiles, steps = sys.stdin.read(), sys.argv[1].split(",")
times = {}
started = time.perf_counter()
mol = Chem.MolFromSmiles(smiles)
times["read"] = time.perf_counter() - started
for step in steps:
    print(json.dumps(times), flush=True)  # what is known so far, should the next step crash
    started = time.perf_counter()
    if step == "canonical":
        Chem.MolToSmiles(mol)
    elif step == "coordinates":
        rdDepictor.Compute2DCoords(mol)
    times[step] = time.perf_counter() - started
print(json.dumps(times), flush=True)
"""


def chain(n: int) -> str:
    return "C" * n


def nested(n: int) -> str:
    return "C(" * (n - 1) + "C" + ")" * (n - 1)


def cage(n: int) -> str:
    """``n`` atoms bonded all to all: n - 1 chain bonds, the rest ring closures (n(n-1)/2 - (n-1) of them)."""
    label = {pair: k + 1 for k, pair in enumerate(itertools.combinations(range(n), 2))}
    return "".join("[U]" + "".join(f"%({label[min(i, j), max(i, j)]})" for j in range(n) if abs(i - j) > 1) for i in range(n))


def probe(smiles: str, steps: tuple[str, ...]) -> dict[str, str]:
    """Each step's time (s), or how it ended (``SIGSEGV``, ``over 120 s``)."""
    process = subprocess.Popen(
        [sys.executable, "-c", _PROBE, ",".join(steps)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        out, _ = process.communicate(smiles, timeout=LIMIT_S)
        ended = ""
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
        ended = f"over {LIMIT_S:.0f} s"
    if process.returncode and process.returncode < 0 and not ended:
        ended = signal.Signals(-process.returncode).name
    lines = [line for line in out.splitlines() if line.startswith("{")]
    times = json.loads(lines[-1]) if lines else {}
    result = {step: f"{times[step]:.3f}" for step in ("read", *steps) if step in times}
    for step in ("read", *steps):
        if step not in result:
            result[step] = ended or "?"
            break
    return result


def rows(quick: bool) -> list[tuple[str, int, int, str, dict[str, str]]]:
    from pxp_tui.tasks.drug import limits

    shapes = [
        ("chain", chain, (500, 1_000) if quick else (500, 1_000, 2_000, 5_000, 10_000, 15_000, 20_000)),
        ("nested branches", nested, (500,) if quick else (500, 1_000, 5_000, 10_000, 20_000)),
        ("all-to-all cage", cage, (12, 16) if quick else (12, 16, 20, 30, 40)),
    ]
    out = []
    for name, make, sizes in shapes:
        for n in sizes:
            smiles = make(n)
            atoms, _depth, closures = limits.measure(smiles)
            steps = ("canonical",) if n > 2_000 else ("canonical", "coordinates")
            verdict = limits.problem(smiles) or "within the limits"
            out.append((name, atoms, closures, verdict, probe(smiles, steps)))
            print(name, atoms, closures, out[-1][4], flush=True)
    return out


def worker_cost(count: int = 2_000) -> tuple[float, float, float]:
    """(ms per reading through the worker, ms in this process, ms per live check of a new answer)."""
    from pxp_tui.tasks.drug import reader, reading
    from pxp_tui.tasks.drug.task import DrugTask

    reader.start()
    molecules = [f"CC(=O)Oc1ccccc1C(=O)O{'C' * (i % 40)}" + ("O" * (i // 40)) for i in range(count)]
    started = time.perf_counter()
    for one in molecules:
        reader.WORKER.call("pxp_tui.tasks.drug.reading:canonical", one)
    through = (time.perf_counter() - started) / count * 1000
    started = time.perf_counter()
    for one in molecules:
        reading.canonical(one)
    here = (time.perf_counter() - started) / count * 1000
    task, typed = DrugTask(), "CC(=O)Cl.Nc1ccc(O)cc1"
    checks = []
    for i in range(1, 200):
        answer = typed + "C" * i  # each key typed is a new answer, never read before
        started = time.perf_counter()
        task.validate_prediction(answer)
        checks.append((time.perf_counter() - started) * 1000)
    return through, here, statistics.median(checks)


def table(found: list[tuple[str, int, int, str, dict[str, str]]]) -> str:
    lines = [
        "| shape | atoms | ring closures | pxp's limits | read (s) | canonical SMILES (s) | 2D coordinates (s) |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for name, atoms, closures, verdict, times in found:
        cells = [times.get(step, "") for step in ("read", "canonical", "coordinates")]
        lines.append(f"| {name} | {atoms:,} | {closures:,} | {verdict} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the probes that take minutes")
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/reliability.md")
    args = parser.parse_args()
    found = rows(args.quick)
    through, here, check = worker_cost()
    body = "\n".join(
        [
            "RDKit on large SMILES, each probe in a fresh process (a crash ends the probe, not the benchmark; "
            f"a step over {LIMIT_S:.0f} s is stopped):",
            "",
            table(found),
            "",
            f"Reading one SMILES through RDKit's worker process: {through:.3f} ms a molecule, against {here:.3f} ms in "
            f"the calling process ({through - here:.3f} ms for the round trip). The expert's live check of a new "
            f"two-molecule answer (each key typed): {check:.3f} ms (median).",
        ]
    )
    print(body)
    if args.docs:
        print(f"written to {write_section('rdkit-limits', 'RDKit and large SMILES', body, page=PAGE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
