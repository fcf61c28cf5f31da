"""Benchmark: what each speed trick of :mod:`engine.fast` buys inside the kernel that uses it (issue #32 item 7).

For every trick, the kernel that calls it is timed twice in interleaved rounds on the same inputs: as the engine
runs it, and with the trick replaced in the calling module by the plain numpy version its docstring names
(:mod:`bench.fast_plain`). The outputs of the two runs are asserted equal, so both do the same work. A trick is
worth its code when it saves at least ``KEEP_SAVING_FRACTION`` (10 %) of its kernel's time; the table says which.

Kernels and sizes are those of the other benchmarks: the 100,000-draw TCO Monte Carlo and the 1,000,000-point TCO
comparison (bench_tco), the 1,000-sample TOPSIS weight Monte Carlo (bench_scoring). Six other tricks were measured
the same way on 2026-12-04 (``price_training`` / ``price_inference`` on 100,000 offers and the kernels above) and
saved 0-6 % of their kernel, so they were written plainly in the kernels: ``fill_missing_nonnegative`` +0.2 %,
``first_reason_codes`` +3.8 %, ``flag_codes`` +1.0 %, ``nan_as_tiny`` (none; the plain code was faster),
``BlockSampler`` +4.4 %, ``topsis_closeness_into`` +6.0 %. Times are best-of wall times on a shared machine (the
load average is printed by ``bench/run_all.py``); savings below a few per cent are within the noise.

Exit status is always 0; ``main()`` returns the rows.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench import fast_plain  # noqa: E402

KEEP_SAVING_FRACTION = 0.10
ROUNDS = 5
REPEATS = 3
MICRO_REPEATS = 10


def _best_ms(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def _equal(a: Any, b: Any) -> bool:
    """Results equal: integer and boolean arrays bit for bit; float arrays to 1e-12 relative (the fused TCO block
    kernel orders a few operations differently from the plain one: last-bit rounding) with NaN and infinities in the
    same places; containers element by element, else ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind != "f" or a.shape != b.shape:
            return np.array_equal(a, b)
        same_special = np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(np.isposinf(a), np.isposinf(b)) \
            and np.array_equal(np.isneginf(a), np.isneginf(b))
        return same_special and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "__dict__") and not isinstance(a, type):
        return _equal(vars(a), vars(b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def _patched(modules: list[str], name: str, plain: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run a function with ``name`` replaced by ``plain`` in each calling module."""
    def run(fn: Callable[[], Any]) -> Any:
        saved = [(sys.modules[m], getattr(sys.modules[m], name)) for m in modules]
        try:
            for module, _ in saved:
                setattr(module, name, plain)
            return fn()
        finally:
            for module, original in saved:
                setattr(module, name, original)
    return run


def _kernels() -> dict[str, Callable[[], Any]]:
    """The kernels that call a trick, on the other benchmarks' inputs."""
    from bench.bench_scoring import synthetic_problem
    from bench.bench_tco import random_scenarios
    from engine.scoring import Method, monte_carlo_weights
    from engine.tco import TcoInputs, default_monte_carlo_ranges, monte_carlo
    from engine.tco.horizon import COMPARE_PARAMS, compare_options_per_useful_gpu_hour

    base = TcoInputs()
    ranges = default_monte_carlo_ranges(base)
    points = random_scenarios(1_000_000)
    x, objectives, weights = synthetic_problem()

    def mc_tco() -> Any:
        r = monte_carlo(base, ranges, n_draws=100_000, seed=0)
        return (r.percentiles_eur_per_useful_gpu_hour, r.samples_eur_per_useful_gpu_hour)

    def mc_scoring() -> Any:
        r = monte_carlo_weights(x, objectives, weights, n_samples=1_000, seed=1, method=Method.TOPSIS)
        return r.rank_probability

    return {
        "TCO Monte Carlo (100k draws)": mc_tco,
        "TCO comparison (1M points)": lambda: compare_options_per_useful_gpu_hour(
            **{k: points[k] for k in COMPARE_PARAMS if k in points}),
        "TOPSIS weight Monte Carlo (1k samples)": mc_scoring,
    }


#: (trick, calling modules, plain version, kernel)
TRICKS: list[tuple[str, list[str], Any, str]] = [
    ("percentiles_linear", ["engine.tco.uncertainty"], fast_plain.percentiles_linear,
     "TCO Monte Carlo (100k draws)"),
    ("evaluate_in_blocks", ["engine.tco.horizon"], fast_plain.evaluate_in_blocks, "TCO comparison (1M points)"),
    ("unique_rows", ["engine.scoring.sensitivity"], fast_plain.unique_rows, "TOPSIS weight Monte Carlo (1k samples)"),
]


def _recorded_calls(modules: list[str], name: str, kernel: Callable[[], Any]) -> list[tuple[tuple, dict]]:
    """The arguments of every call the kernel makes to the trick (one kernel run)."""
    original = getattr(sys.modules[modules[0]], name)
    calls: list[tuple[tuple, dict]] = []

    def recorder(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    _patched(modules, name, recorder)(kernel)
    return calls


def _calls_ms(fn: Callable[..., Any], calls: list[tuple[tuple, dict]]) -> float:
    """Best-of time of making every recorded call once [ms]."""
    best = float("inf")
    for _ in range(MICRO_REPEATS):
        start = time.perf_counter()
        for args, kwargs in calls:
            fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> list[dict[str, Any]]:
    """Per trick: the kernel's time with the trick, the trick's own calls timed against the plain version on the
    very arguments the kernel passes (short and repeatable, so stable on a loaded machine), and the whole kernel
    with the plain version swapped in (outputs asserted equal; its time is noisier, shown for information). The
    saving is the calls' difference as a share of the plain kernel's time."""
    import importlib

    kernels = _kernels()
    rows = []
    with np.errstate(all="ignore"):
        for trick, modules, plain, kernel_name in TRICKS:
            for m in modules:
                importlib.import_module(m)
            kernel = kernels[kernel_name]
            as_plain = _patched(modules, trick, plain)
            same = _equal(kernel(), as_plain(kernel))
            calls = _recorded_calls(modules, trick, kernel)
            original = getattr(sys.modules[modules[0]], trick)
            trick_calls_ms = min(_calls_ms(original, calls) for _ in range(ROUNDS))
            plain_calls_ms = min(_calls_ms(plain, calls) for _ in range(ROUNDS))
            kernel_ms = plain_kernel_ms = float("inf")
            for _ in range(ROUNDS):
                kernel_ms = min(kernel_ms, _best_ms(kernel))
                plain_kernel_ms = min(plain_kernel_ms, as_plain(lambda k=kernel: _best_ms(k)))
            saved_ms = plain_calls_ms - trick_calls_ms
            saving = saved_ms / (kernel_ms + saved_ms)
            rows.append({"trick": trick, "kernel": kernel_name, "kernel_ms": kernel_ms,
                         "plain_kernel_ms": plain_kernel_ms, "calls": len(calls), "trick_calls_ms": trick_calls_ms,
                         "plain_calls_ms": plain_calls_ms, "saving_fraction": saving, "outputs_equal": same,
                         "keep": bool(same and saving >= KEEP_SAVING_FRACTION)})
    print(f"{'trick':20s} {'kernel':40s} {'kernel':>9s} {'calls: trick':>13s} {'plain':>9s} {'saving':>7s} "
          f"{'kernel w/ plain':>16s}  equal  verdict")
    for r in rows:
        print(f"{r['trick']:20s} {r['kernel']:40s} {r['kernel_ms']:6.1f} ms {r['calls']:3d}x {r['trick_calls_ms']:6.2f} ms "
              f"{r['plain_calls_ms']:6.2f} ms {r['saving_fraction']:+7.1%} {r['plain_kernel_ms']:13.1f} ms  "
              f"{'yes' if r['outputs_equal'] else 'NO':5s}  "
              f"{'keep (>= 10 % of its kernel)' if r['keep'] else 'write plainly'}")
    return rows


if __name__ == "__main__":
    main()
