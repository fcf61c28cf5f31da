"""Benchmark of the vectorised TCO engine against a plain-Python loop over the same formula.

Run from anywhere: ``python bench/bench_tco.py``. Two cases, each timed in the same run:

(a) one million scenario points through :func:`engine.tco.compare_options_per_useful_gpu_hour` (three
    costs per useful GPU-hour and three break-even utilisations per point), in two shapes:
    (a1) a sweep, the page's heat map: 1,000 utilisations x 1,000 on-demand prices, the other inputs
         fixed;
    (a2) the worst case: 1,000,000 random scenarios in which all 23 inputs vary;
(b) a 100,000-draw Monte Carlo (:func:`engine.tco.monte_carlo` with its default ranges, 14 uncertain
    inputs), end to end: drawing, bound checks, the kernel, percentiles and probabilities.

The loop evaluates the same formula point by point with ``math`` (:func:`scalar_compare`; a test checks it
against the engine), and the Monte Carlo loop draws with the standard library's ``random.triangular``
and sorts for the percentiles. The loop runs on a subsample (20,000 points, 10,000 draws) and its time
is scaled linearly to the full size; the output says so. Scaling is conservative for (b): sorting grows
faster than linearly, so the real full-size loop would be slower still. Each time is the best of several
repeats (``time.perf_counter``). Targets on the 2-core reference machine: vectorised >= 50x faster than
the loop, and the Monte Carlo under 100 ms. The script always exits 0: benchmarks report, they do not fail.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from engine.tco import (  # noqa: E402  (import after the sys.path set-up)
    COMPARE_PARAMS,
    HOURS_PER_MONTH,
    MONTHS_PER_YEAR,
    TcoInputs,
    compare_options_per_useful_gpu_hour,
    default_monte_carlo_ranges,
    monte_carlo,
    validate_arrays,
)

N_POINTS = 1_000_000
N_POINTS_LOOP = 20_000
N_DRAWS = 100_000
N_DRAWS_LOOP = 10_000
TARGET_RATIO = 50.0
TARGET_MONTE_CARLO_MS = 100.0

#: Argument order of :func:`scalar_compare`: the engine kernel's own order (TcoInputs field names).
SCALAR_ARGS = COMPARE_PARAMS


def scalar_compare(
    u: float, horizon: float, p: float, decline: float, p_res: float, term: float, server: float, net: float,
    storage: float, install: float, life_years: float, rate: float, residual: float, power_kw: float, idle: float,
    pue: float, price_kwh: float, colo: float, maintenance: float, fte: float, labour: float, hours: float,
    gpus: float,
) -> tuple[float, float, float, float, float, float]:
    """The horizon formula of ``compare_options_per_useful_gpu_hour`` for one point, in plain Python (``math``).

    Returns (on_demand, reserved, owned) [EUR per useful GPU-h] and the break-even utilisations
    (on demand vs owned, on demand vs reserved, reserved vs owned) [-].
    """
    h = HOURS_PER_MONTH
    q = (1.0 - decline) ** (1.0 / MONTHS_PER_YEAR)
    mean_price = p * (1.0 - q**horizon) / (horizon * (1.0 - q)) if decline > 0 else p
    per_u = h * horizon * mean_price
    if math.isnan(p_res):
        reserved = math.nan
    else:
        terms = math.ceil(horizon / term)
        ratio = (1.0 - decline) ** (term / MONTHS_PER_YEAR)
        series = (1.0 - ratio**terms) / (1.0 - ratio) if ratio < 1.0 else terms
        reserved = h * term * p_res * series
    life = max(1.0, float(round(life_years * MONTHS_PER_YEAR)))
    purchases = math.ceil(horizon / life)
    age = horizon - (purchases - 1) * life
    equipment = server + net + storage
    monthly_rate = (1.0 + rate) ** (1.0 / MONTHS_PER_YEAR) - 1.0
    lost = 1.0 - residual

    def tied(x: float, share: float) -> float:
        return x - share * x * (x - 1.0) / (2.0 * life)

    capital = monthly_rate * (
        equipment * ((purchases - 1) * tied(life, lost) + tied(age, lost))
        + install * ((purchases - 1) * tied(life, 1.0) + tied(age, 1.0))
    )
    energy_month = power_kw * pue * price_kwh * h
    fixed = (
        purchases * (equipment + install) - (purchases - 1) * residual * equipment - equipment * (1.0 - lost * age / life)
        + capital
        + horizon * (energy_month * idle + colo * power_kw + fte * labour * hours / (MONTHS_PER_YEAR * gpus)
                     + maintenance * equipment / MONTHS_PER_YEAR)
    )
    variable = energy_month * (1.0 - idle) * horizon
    useful = u * h * horizon
    be_od_own = fixed / (per_u - variable) if per_u > variable else math.inf
    be_od_res = reserved / per_u if per_u > 0 else math.nan
    if variable != 0.0:
        be_res_own = (reserved - fixed) / variable
    elif reserved == fixed:
        be_res_own = math.nan
    else:
        be_res_own = math.copysign(math.inf, reserved - fixed)
    return per_u * u / useful, reserved / useful, (fixed + variable * u) / useful, be_od_own, be_od_res, be_res_own


def random_scenarios(n: int, seed: int = 42) -> dict[str, np.ndarray]:
    """``n`` random scenarios: each input drawn uniformly around the default, within its bounds."""
    rng = np.random.default_rng(seed)
    base = TcoInputs()
    out = {}
    for name in SCALAR_ARGS:
        value = float(getattr(base, name) or 0.0)
        out[name] = value * rng.uniform(0.5, 1.5, n)
    out["utilisation_fraction"] = rng.uniform(0.05, 1.0, n)
    out["horizon_months"] = rng.integers(1, 121, n).astype(float)
    out["rental_price_decline_fraction_per_year"] = rng.uniform(0.0, 0.3, n)
    out["price_reserved_eur_per_gpu_hour"] = rng.uniform(1.0, 4.0, n)
    out["reserved_term_months"] = rng.choice([1.0, 12.0, 36.0], n)
    out["idle_power_fraction"] = rng.uniform(0.0, 1.0, n)
    out["residual_value_fraction"] = rng.uniform(0.0, 0.5, n)
    out["pue"] = rng.uniform(1.05, 2.0, n)
    rate = rng.uniform(0.0, 0.15, n)
    rate[rng.random(n) < 0.01] = 0.0  # exercise the zero-rate branch
    out["cost_of_capital_fraction_per_year"] = rate
    out["installation_capex_eur_per_gpu"] = rng.uniform(0.0, 2000.0, n)
    out["cluster_gpus"] = rng.integers(1, 1025, n).astype(float)
    return validate_arrays(**out)


def _best_of(fn: Callable[[], object], repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _percentile_linear(sorted_values: list[float], q: float) -> float:
    """numpy's default (linear) percentile on a sorted list."""
    position = (len(sorted_values) - 1) * q / 100.0
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    return sorted_values[lower] + (sorted_values[upper] - sorted_values[lower]) * (position - lower)


def loop_monte_carlo(base: TcoInputs, ranges: dict[str, tuple[float, float, float]], n_draws: int, seed: int) -> dict:
    """The Monte Carlo of :func:`engine.tco.monte_carlo`, one draw at a time in plain Python."""
    rng = random.Random(seed)
    fixed_values = {k: (math.nan if v is None else v) for k, v in base.model_dump().items()}
    costs: dict[str, list[float]] = {"on_demand": [], "reserved": [], "owned": []}
    owned_wins = reserved_wins = owned_beats_reserved = 0
    for _ in range(n_draws):
        values = dict(fixed_values)
        for name, (low, mode, high) in ranges.items():
            values[name] = rng.triangular(low, high, mode)
        od, res, own, *_ = scalar_compare(*(values[name] for name in SCALAR_ARGS))
        costs["on_demand"].append(od)
        costs["reserved"].append(res)
        costs["owned"].append(own)
        owned_wins += own < od
        reserved_wins += res < od
        owned_beats_reserved += own < res
    percentiles = {}
    for option, values_list in costs.items():
        ordered = sorted(values_list)
        percentiles[option] = {f"p{q}": _percentile_linear(ordered, q) for q in (10, 50, 90)}
    return {
        "percentiles": percentiles,
        "probability_owned_beats_on_demand": owned_wins / n_draws,
        "probability_reserved_beats_on_demand": reserved_wins / n_draws,
        "probability_owned_beats_reserved": owned_beats_reserved / n_draws,
    }


def sweep_scenarios(n_side: int = 1000) -> dict[str, np.ndarray]:
    """A utilisation x on-demand price grid (``n_side`` x ``n_side``) with the other inputs at their defaults."""
    return validate_arrays(
        utilisation_fraction=np.linspace(0.05, 1.0, n_side)[:, None],
        price_on_demand_eur_per_gpu_hour=np.linspace(0.5, 10.0, n_side)[None, :],
    )


def _bench_points(arrays: dict[str, np.ndarray]) -> dict[str, float]:
    """Time the kernel on every point and the loop on an evenly spaced subsample of the same points."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    n = math.prod(shape)
    compare_options_per_useful_gpu_hour(**arrays)  # warm-up
    vector_s = _best_of(lambda: compare_options_per_useful_gpu_hour(**arrays), repeats=7)
    picked = np.unravel_index(np.arange(0, n, n // N_POINTS_LOOP)[:N_POINTS_LOOP], shape)
    columns = [np.broadcast_to(arrays[name], shape)[picked].tolist() for name in SCALAR_ARGS]
    rows = list(zip(*columns, strict=True))  # conversion to Python floats is not timed

    def run_loop() -> list[tuple[float, ...]]:
        return [scalar_compare(*row) for row in rows]

    loop_s = _best_of(run_loop, repeats=5) * (n / len(rows))
    return {
        "n": n,
        "n_loop": len(rows),
        "vector_ms": vector_s * 1e3,
        "loop_ms_scaled": loop_s * 1e3,
        "ratio": loop_s / vector_s,
    }


def bench_scenarios() -> dict[str, dict[str, float]]:
    """Case (a): one million scenario points as a sweep (a1) and as random scenarios (a2)."""
    sweep = _bench_points(sweep_scenarios())
    random_points = random_scenarios(N_POINTS)
    scattered = _bench_points(random_points)
    scattered["vector_with_validation_ms"] = scattered["vector_ms"] + 1e3 * _best_of(
        lambda: validate_arrays(**random_points), repeats=3
    )
    return {"sweep": sweep, "random": scattered}


def bench_monte_carlo() -> dict[str, float]:
    """Case (b): 100,000-draw Monte Carlo end to end, vectorised vs loop (subsampled, scaled)."""
    base = TcoInputs()
    ranges = default_monte_carlo_ranges(base)
    monte_carlo(base, ranges, n_draws=N_DRAWS, seed=0)  # warm-up
    vector_s = _best_of(lambda: monte_carlo(base, ranges, n_draws=N_DRAWS, seed=0), repeats=7)
    loop_s = _best_of(lambda: loop_monte_carlo(base, ranges, N_DRAWS_LOOP, seed=0), repeats=5) * (
        N_DRAWS / N_DRAWS_LOOP
    )
    return {
        "n": N_DRAWS,
        "n_loop": N_DRAWS_LOOP,
        "vector_ms": vector_s * 1e3,
        "loop_ms_scaled": loop_s * 1e3,
        "ratio": loop_s / vector_s,
    }


def main() -> dict[str, dict]:
    """Run all cases, print a table and return the numbers with PASS/FAIL flags."""
    points = bench_scenarios()
    for case in points.values():
        case["pass"] = case["ratio"] >= TARGET_RATIO
    mc = bench_monte_carlo()
    mc["pass_ratio"] = mc["ratio"] >= TARGET_RATIO
    mc["pass_time"] = mc["vector_ms"] < TARGET_MONTE_CARLO_MS
    mc["pass"] = mc["pass_ratio"] and mc["pass_time"]

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    def row(label: str, case: dict, extra: str = "") -> str:
        return (
            f"{label:<44} {case['vector_ms']:>10.1f} {case['loop_ms_scaled']:>10.0f} {case['ratio']:>7.0f}x  "
            f">= {TARGET_RATIO:.0f}x: {verdict(case['ratio'] >= TARGET_RATIO)}{extra}"
        )

    print(f"TCO engine benchmark (numpy {np.__version__}; best of repeats, time.perf_counter)")
    print(f"{'case':<44} {'vector ms':>10} {'loop ms*':>10} {'ratio':>8}  target")
    print(row("(a1) 1,000,000-point sweep (u x price grid)", points["sweep"]))
    print(row("(a2) 1,000,000 random points, 23 inputs vary", points["random"]))
    print(row("(b)  100,000-draw Monte Carlo, 14 inputs", mc,
              f"; < {TARGET_MONTE_CARLO_MS:.0f} ms: {verdict(mc['pass_time'])}"))
    print(
        f"* loop timed on {N_POINTS_LOOP:,} points / {N_DRAWS_LOOP:,} draws and scaled linearly to full size. "
        f"(a2) plus validate_arrays bound checks: {points['random']['vector_with_validation_ms']:.1f} ms."
    )
    return {"scenario_points": points, "monte_carlo": mc}


if __name__ == "__main__":
    main()
    sys.exit(0)
