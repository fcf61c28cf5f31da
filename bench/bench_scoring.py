"""Benchmark of the scoring Monte Carlo against a fair plain-numpy baseline and the peer library pymcdm.

Run from anywhere: ``python bench/bench_scoring.py``. The case of the issue: a synthetic decision matrix of
10,000 alternatives x 12 criteria (4 cost, 8 benefit), 1,000 weight samples from a Dirichlet centred on
fixed weights (concentration 20), for each method:

* **engine**: :func:`engine.scoring.monte_carlo_weights` end to end -- drawing the weights, scoring every
  sample (weighted sum of min-max normalised criteria, or TOPSIS with vector normalisation), ranking,
  and the probability of each rank 1..10 per alternative (the default ``rank_depth``);
* **numpy loop** (the fair baseline, the headline ratio): plain numpy written independently here, that
  normalises the matrix *once* (TOPSIS: also the distances to the ideal and anti-ideal once), then per weight
  sample scores all alternatives with one matrix-vector product, ranks them (``scipy.stats.rankdata``,
  ties share the better rank as in the engine) and counts ranks 1..10. It runs on the engine's own weight
  samples, all 1,000, and its rank probabilities must equal the engine's (asserted, exactly);
* **pymcdm called per sample** (the library comparison, labelled so): dev-only peer library doing the same
  per sample with ``WSM(minmax_normalization)`` or ``TOPSIS(vector_normalization)``, which re-normalises the
  matrix on every call (``validation=False``: pure computation, which favours pymcdm), ``rankdata`` for the
  ranks. It runs on a subsample of 50 weight samples and its time is scaled linearly to 1,000; the output
  says so. A sanity check compares its scores with the engine's on the subsample.

Each time is the best of several repeats (``time.perf_counter``). Target on the 2-core reference machine:
each Monte Carlo under 200 ms. The script always exits 0: benchmarks report, they do not fail (the equality
of the rank probabilities is checked with an assertion: a wrong engine stops the benchmark).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from engine.scoring import (  # noqa: E402  (import after the sys.path set-up)
    DEFAULT_CONCENTRATION,
    DEFAULT_RANK_DEPTH,
    Method,
    monte_carlo_weights,
    topsis_scores,
    weighted_sum_scores,
)

N_ALTERNATIVES = 10_000
N_CRITERIA = 12
N_SAMPLES = 1_000
N_SAMPLES_PEER = 50
REPEATS = 5
REPEATS_PEER = 2
REPEATS_LOOP = 2
TARGET_MS = 200.0


def synthetic_problem(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matrix (10,000 x 12) on mixed positive scales, objectives (4 MIN, 8 MAX) and weights (sum 1)."""
    rng = np.random.default_rng(seed)
    scales = rng.uniform(1.0, 500.0, N_CRITERIA)
    x = rng.uniform(0.05, 1.0, (N_ALTERNATIVES, N_CRITERIA)) * scales
    objectives = np.array([-1] * 4 + [1] * (N_CRITERIA - 4))
    weights = rng.dirichlet(np.full(N_CRITERIA, 3.0))
    return x, objectives, weights


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """Best wall time of ``repeats`` calls [s]."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def numpy_loop_monte_carlo(x: np.ndarray, objectives: np.ndarray, samples: np.ndarray, method: Method,
                           depth: int = DEFAULT_RANK_DEPTH) -> np.ndarray:
    """The fair baseline: normalise once, then one score vector, one ranking and the rank counts per weight
    sample, in plain numpy (nothing from engine.scoring). Returns shape (n, depth) rank probabilities."""
    from scipy.stats import rankdata

    maximise = np.asarray(objectives) > 0
    if method is Method.WSM:
        lo, hi = x.min(axis=0), x.max(axis=0)
        span = hi - lo
        a = np.where(maximise, x - lo, hi - x) / np.where(span > 0, span, 1.0)
        a[:, span == 0] = 1.0

        def score(w: np.ndarray) -> np.ndarray:
            return a @ w
    else:
        r = x / np.sqrt((x * x).sum(axis=0))
        ideal = np.where(maximise, r.max(axis=0), r.min(axis=0))
        anti = np.where(maximise, r.min(axis=0), r.max(axis=0))
        d_plus, d_minus = (r - ideal) ** 2, (r - anti) ** 2

        def score(w: np.ndarray) -> np.ndarray:
            w2 = w * w
            s_plus, s_minus = np.sqrt(d_plus @ w2), np.sqrt(d_minus @ w2)
            return s_minus / (s_plus + s_minus)

    counts = np.zeros((x.shape[0], depth))
    for w in samples:
        ranks = rankdata(-score(w), method="min").astype(int)
        inside = np.flatnonzero(ranks <= depth)
        counts[inside, ranks[inside] - 1] += 1.0
    return counts / len(samples)


def peer_monte_carlo(x: np.ndarray, objectives: np.ndarray, samples: np.ndarray, method: Method) -> np.ndarray:
    """pymcdm, one call per weight sample, with the same rank counts as ours: shape (n, rank_depth)."""
    from pymcdm.helpers import rankdata
    from pymcdm.methods import TOPSIS, WSM
    from pymcdm.normalizations import minmax_normalization, vector_normalization

    body = WSM(minmax_normalization) if method is Method.WSM else TOPSIS(vector_normalization)
    depth = DEFAULT_RANK_DEPTH
    counts = np.zeros((x.shape[0], depth))
    for w in samples:
        ranks = rankdata(body(x, w, objectives, validation=False), reverse=True)
        inside = ranks <= depth
        np.add.at(counts, (np.flatnonzero(inside), (ranks[inside] - 1).astype(int)), 1.0)
    return counts / len(samples)


def run_case(x: np.ndarray, objectives: np.ndarray, weights: np.ndarray, method: Method, peer: bool) -> dict:
    def ours() -> object:
        return monte_carlo_weights(x, objectives, weights, n_samples=N_SAMPLES, seed=1, method=method)

    ours_s = best_of(ours, REPEATS)
    mc = ours()
    loop_probability = numpy_loop_monte_carlo(x, objectives, mc.weight_samples, method)
    differ = np.argwhere(loop_probability != mc.rank_probability)
    assert differ.size == 0, (f"{method.value}: engine and numpy loop rank probabilities differ at "
                              f"{len(differ)} (alternative, rank) cells, first {differ[:3].tolist()}")
    loop_s = best_of(lambda: numpy_loop_monte_carlo(x, objectives, mc.weight_samples, method), REPEATS_LOOP)
    case: dict = {
        "method": method.value,
        "ours_ms": ours_s * 1e3,
        "loop_ms": loop_s * 1e3,
        "loop_ratio": loop_s / ours_s,
        "p_first_max": float(mc.p_first.max()),
        "alternatives_ever_first": int((mc.p_first > 0).sum()),
    }
    if peer:
        sub = mc.weight_samples[:N_SAMPLES_PEER]
        peer_s = best_of(lambda: peer_monte_carlo(x, objectives, sub, method), REPEATS_PEER)
        case["peer_ms_scaled"] = peer_s * 1e3 * N_SAMPLES / N_SAMPLES_PEER
        case["ratio"] = case["peer_ms_scaled"] / case["ours_ms"]
        # Sanity: both libraries score the subsample alike.
        from pymcdm.methods import TOPSIS, WSM
        from pymcdm.normalizations import minmax_normalization, vector_normalization

        body = WSM(minmax_normalization) if method is Method.WSM else TOPSIS(vector_normalization)
        theirs = np.stack([body(x, w, objectives, validation=False) for w in sub[:5]])
        kernel = weighted_sum_scores if method is Method.WSM else topsis_scores
        ours_scores = kernel(x, objectives, sub[:5])
        case["max_score_difference"] = float(np.abs(theirs - ours_scores).max())
    case["pass"] = case["ours_ms"] < TARGET_MS
    return case


def main() -> dict:
    """Run both methods, print a table and return the numbers with PASS/FAIL flags."""
    try:
        import pymcdm  # noqa: F401

        peer = True
    except ImportError:
        peer = False
    x, objectives, weights = synthetic_problem()
    cases = {m.value: run_case(x, objectives, weights, m, peer) for m in Method}
    combined = sum(c["ours_ms"] for c in cases.values())

    print(
        f"Scoring Monte Carlo benchmark: {N_ALTERNATIVES:,} alternatives x {N_CRITERIA} criteria, "
        f"{N_SAMPLES:,} Dirichlet weight samples (c = {DEFAULT_CONCENTRATION:g}), ranks 1..{DEFAULT_RANK_DEPTH} "
        f"(numpy {np.__version__}; best of {REPEATS}, time.perf_counter)"
    )
    print("fair baseline: numpy loop, normalised once, one score + ranking per sample, all "
          f"{N_SAMPLES:,} samples (best of {REPEATS_LOOP}); rank probabilities equal to the engine's (asserted)")
    if peer:
        print(f"library comparison: pymcdm called per sample (re-normalises each call) ran {N_SAMPLES_PEER} "
              f"samples (best of {REPEATS_PEER}); its time is scaled x{N_SAMPLES // N_SAMPLES_PEER} to "
              f"{N_SAMPLES:,} samples (marked *).")
    else:
        print("pymcdm is not installed (pip install pymcdm): no library comparison.")
    print(f"{'method':<14} {'engine ms':>9} {'loop ms':>9} {'vs loop':>8} {'pymcdm ms*':>11} {'vs pymcdm':>10} "
          f"{'max |diff|':>11}  target < {TARGET_MS:.0f} ms")
    for c in cases.values():
        peer_cols = (
            f"{c['peer_ms_scaled']:>11.0f} {c['ratio']:>9.0f}x {c['max_score_difference']:>11.1e}"
            if peer else f"{'-':>11} {'-':>10} {'-':>11}"
        )
        print(f"{c['method']:<14} {c['ours_ms']:>9.1f} {c['loop_ms']:>9.0f} {c['loop_ratio']:>7.1f}x {peer_cols}  "
              f"{'PASS' if c['pass'] else 'FAIL'}")
    print(f"{'both':<14} {combined:>9.1f}  (weighted sum + TOPSIS in one page refresh: "
          f"{'PASS' if combined < TARGET_MS else 'FAIL'} against {TARGET_MS:.0f} ms)")
    return {"cases": cases, "combined_ms": combined, "pass": all(c["pass"] for c in cases.values())}


if __name__ == "__main__":
    main()
    sys.exit(0)
