"""Peak memory and time of ``pxp import`` as files grow: DRUG rows, and RAD images.

    python benchmarks/import_memory.py [--rows 5000 50000] [--images 20 200] [--keep DIR] [--docs]

Each import runs as its own ``pxp`` process (what a user runs); its peak resident memory is the
kernel's (``wait4``'s ``ru_maxrss``). DRUG files are pxp's format with distinct, valid molecules;
RAD images are 1-megapixel grey PNGs of noise (about 1 MB each, like a radiograph's file). A
reader that held the file, or every image, would grow with them; pxp holds one image at a time, and
the rows (not the file's text) of a DRUG file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.docs_section import write_section  # noqa: E402 - first: it reads the load average as the benchmark starts
from pxp_harness.big_files import drug_csv, rad_csv  # noqa: E402


def measure(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of ``pxp ARGV``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "pxp_tui", *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5_000, 50_000])
    parser.add_argument("--images", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--keep", type=Path, help="make the files here and keep them (default: a temporary folder)")
    parser.add_argument("--docs", action="store_true", help="also write the table into docs/performance.md")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="pxp-import-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = ["| file | size | seconds | peak memory | blackboard |", "|---|---:|---:|---:|---:|"]
    print("\n".join(rows))
    try:
        cases = [("drug", f"{n:,} DRUG rows", lambda n=n: drug_csv(work / f"drug{n}.csv", n)) for n in args.rows]
        cases += [
            ("rad", f"{n:,} RAD images", lambda n=n: rad_csv(work / f"rad{n}", n, side=1000, noise=True)) for n in args.images
        ]
        for task, label, make in cases:
            csv = make()
            size = csv.stat().st_size + sum(p.stat().st_size for p in csv.parent.glob("*.png") if task == "rad")
            db = work / f"{csv.stem}-{label.split()[0]}.db"
            seconds, peak, code = measure(["import", task, str(csv), "--db", str(db)], work)
            if code:
                raise SystemExit(f"{label}: pxp import exited with {code}")
            rows.append(
                f"| {label} | {size / 2**20:,.0f} MB | {seconds:.1f} | {peak:,.0f} MB | {db.stat().st_size / 2**20:,.0f} MB |"
            )
            print(rows[-1], flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.docs:
        note = "The seconds move with the machine's load, the memory does not."
        write_section("import_memory", "Peak memory and time per file", "\n".join(rows) + "\n\n" + note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
