"""`make bench`: run every benchmark in one process and print each table (ratios against a baseline
measured in the same run). Benchmarks report; they never fail the build.

BLAS runs with one thread (set here before numpy loads, unless the caller set it): the engine's code and
every baseline then run on one core alike. With OpenBLAS's default of one thread per core, a matrix product
on this shared 2-core machine spun its second thread against other jobs and made the 10,000 x 12 scoring
Monte Carlo 10-30x slower from run to run (41-64 ms with one thread, 350-1,900 ms with two, measured in the
same minutes), which measured the neighbours rather than the code. The machine's load average is printed
before and after: times are wall times, and other jobs on the cores inflate them.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import importlib  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BENCHES = ["bench.bench_tco", "bench.bench_workload", "bench.bench_scoring", "bench.bench_placement",
           "bench.bench_pages", "bench.bench_import", "bench.bench_fast"]


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def main() -> int:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}; {time.strftime('%Y-%m-%d %H:%M')}; {_load()}")
    for name in BENCHES:
        if not (ROOT / (name.replace(".", "/") + ".py")).exists():
            continue
        print(f"\n=== {name} ===  ({_load()})")
        module = importlib.import_module(name)
        module.main()
    print(f"\nend: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
