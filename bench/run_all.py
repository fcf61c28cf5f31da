"""`make bench`: run every benchmark in one process and print each table (ratios against a baseline
measured in the same run). Benchmarks report; they never fail the build."""

from __future__ import annotations

import importlib
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BENCHES = ["bench.bench_tco", "bench.bench_workload", "bench.bench_scoring", "bench.bench_placement",
           "bench.bench_pages", "bench.bench_import"]


def main() -> int:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for name in BENCHES:
        if not (ROOT / (name.replace(".", "/") + ".py")).exists():
            continue
        print(f"\n=== {name} ===")
        module = importlib.import_module(name)
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
