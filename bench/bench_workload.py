"""Benchmark: price one training workload on a synthetic catalog of 100,000 offers.

Run ``python bench/bench_workload.py``. Targets (issue): the vectorised call under 50 ms and at least
50x faster than a per-offer loop (each offer searching its own layouts) in the same run.

* Vectorised: :func:`engine.workload.price_training`, best of ``ROUNDS x REPEATS`` calls after
  warm-up, timed the way a page uses it: the previous result stays alive until the next call returns.
  glibc returns freed ~800 KB temporaries to the OS when nothing else holds the heap, and the next
  call then page-faults them back in; the "results dropped" line shows that worst case, for
  information (it is not what the targets are judged on).
* Loop: :func:`bench.reference_workload.reference_price_training_loop` (the same kernel one offer at a time,
  same formulas, layout choice and exclusions; time, cost, energy, emissions and goodput checked equal to the
  vectorised kernel here and in the tests), timed on the
  first ``LOOP_SUBSAMPLE`` offers and scaled linearly to the full catalog (the loop's cost per
  offer does not depend on the catalog size), best of ``ROUNDS``.
* The two are measured in interleaved rounds so that load from other processes on a shared
  machine hits both alike.

Exit status is always 0; ``main()`` returns the numbers as a dict.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.reference_workload import reference_price_training_loop  # noqa: E402
from engine.network import InterNodeKind, IntraNodeKind, nvlink_busbw_gb_per_s  # noqa: E402
from engine.workload import (  # noqa: E402
    GRID_INTENSITY_G_PER_KWH_BY_COUNTRY,
    InferenceService,
    OfferArrays,
    TrainingJob,
    price_inference,
    price_training,
)

N_OFFERS = 100_000
LOOP_SUBSAMPLE = 1_000
REPEATS = 5
ROUNDS = 8
TARGET_MS = 50.0
TARGET_RATIO = 50.0

# (bf16 TFLOP/s, fp8 TFLOP/s or nan, memory GB, TB/s, W, NVLink GB/s bidirectional or nan, MIG) from
# catalog/seed/gpu_specs.csv: H100 SXM, H200 SXM, B200, A100 SXM 80GB, L40S, MI300X.
_GPUS = np.array([
    [989.5, 1979.0, 80.0, 3.35, 700.0, 900.0, 7.0],
    [989.5, 1979.0, 141.0, 4.8, 700.0, 900.0, 7.0],
    [2250.0, 4500.0, 180.0, 8.0, 1000.0, 1800.0, np.nan],
    [312.0, np.nan, 80.0, 2.039, 400.0, 600.0, 7.0],
    [362.05, 733.0, 48.0, 0.864, 350.0, np.nan, 0.0],
    [1307.0, 2615.0, 192.0, 5.3, 750.0, np.nan, np.nan],
])


def synthetic_catalog(n: int = N_OFFERS, seed: int = 20260101) -> OfferArrays:
    """A mixed catalog: mostly complete rows, ~10 % unknown node shape or fabric, 5 % single-node products."""
    rng = np.random.default_rng(seed)
    gpu = _GPUS[rng.integers(0, len(_GPUS), n)]
    gpn = rng.choice([1.0, 2.0, 4.0, 8.0, 8.0, 8.0, np.nan], n)
    is_sxm = ~np.isnan(gpu[:, 5])
    intra_kind = np.where(is_sxm, IntraNodeKind.NVLINK_NVSWITCH, IntraNodeKind.PCIE).astype(np.int8)
    intra_kind[rng.random(n) < 0.10] = IntraNodeKind.UNKNOWN
    intra_bw = np.where(intra_kind == IntraNodeKind.NVLINK_NVSWITCH, nvlink_busbw_gb_per_s(gpu[:, 5]),
                        np.where(intra_kind == IntraNodeKind.PCIE, 28.0, np.nan))
    inter_kind = rng.choice([InterNodeKind.INFINIBAND_NDR, InterNodeKind.INFINIBAND_HDR, InterNodeKind.ROCEV2,
                             InterNodeKind.ETHERNET], n).astype(np.int8)
    u = rng.random(n)
    inter_kind[u < 0.10] = InterNodeKind.UNKNOWN
    inter_kind[(u >= 0.10) & (u < 0.15)] = InterNodeKind.NONE
    inter_bw = rng.choice([100.0, 200.0, 400.0, 400.0], n)
    inter_bw[(inter_kind == InterNodeKind.NONE) | (rng.random(n) < 0.10)] = np.nan
    grid = np.array(list(GRID_INTENSITY_G_PER_KWH_BY_COUNTRY.values()) + [np.nan])
    return OfferArrays(
        price_per_gpu_hour=np.round(rng.uniform(0.4, 9.0, n), 2),
        bf16_tflops=gpu[:, 0], fp8_tflops=gpu[:, 1], memory_gb=gpu[:, 2], memory_bandwidth_tbps=gpu[:, 3],
        tdp_watts=gpu[:, 4], gpus_per_node=gpn, intra_node_kind=intra_kind, intra_bandwidth_gb_per_s=intra_bw,
        inter_node_kind=inter_kind, inter_bandwidth_gbit_per_s_per_gpu=inter_bw,
        grid_intensity_g_per_kwh=rng.choice(grid, n), mig_max_instances=gpu[:, 6],
    )


def _best_ms(fn, repeats: int, keep_previous: bool) -> float:
    best = float("inf")
    previous = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
        previous = result if keep_previous else None
        del result
    del previous
    return best * 1e3


def main() -> dict[str, float | bool | int | str]:
    offers = synthetic_catalog()
    job = TrainingJob.from_preset("llama-2-70b", n_gpus=1024)
    service = InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256, batch_size=16)
    sub = offers.take(slice(0, LOOP_SUBSAMPLE))

    for _ in range(3):  # warm-up
        result = price_training(job, offers)
    # Interleaved rounds: the machine may be shared, so both sides get the same quiet moments;
    # each side's figure is its minimum over all rounds.
    vector_ms = loop_sub_ms = float("inf")
    for _ in range(ROUNDS):
        vector_ms = min(vector_ms, _best_ms(lambda: price_training(job, offers), REPEATS, keep_previous=True))
        t0 = time.perf_counter()
        loop_result = reference_price_training_loop(job, sub)
        loop_sub_ms = min(loop_sub_ms, (time.perf_counter() - t0) * 1e3)
    loop_ms = loop_sub_ms * N_OFFERS / LOOP_SUBSAMPLE
    vector_dropped_ms = _best_ms(lambda: price_training(job, offers), REPEATS, keep_previous=False)
    inference_ms = _best_ms(lambda: price_inference(service, offers), REPEATS, keep_previous=True)
    same = all(np.allclose(getattr(result, key)[:LOOP_SUBSAMPLE], loop_result[key], rtol=1e-12, equal_nan=True)
               for key in ("time_hours", "cost", "energy_kwh", "emissions_kg", "goodput_fraction"))

    ratio = loop_ms / vector_ms
    out: dict[str, float | bool | int | str] = {
        "n_offers": N_OFFERS,
        "workload": f"{job.model_name}, {job.n_gpus} GPUs, {job.training_tokens:.3g} tokens",
        "priced_offers": int((~result.excluded).sum()),
        "vectorised_ms": vector_ms,
        "vectorised_results_dropped_ms": vector_dropped_ms,
        "inference_vectorised_ms": inference_ms,
        "loop_ms_scaled": loop_ms,
        "loop_subsample": LOOP_SUBSAMPLE,
        "ratio": ratio,
        "loop_matches_vectorised": same,
        "pass_time": vector_ms < TARGET_MS,
        "pass_ratio": ratio >= TARGET_RATIO,
    }
    print(f"catalog: {N_OFFERS:,} synthetic offers; workload: {out['workload']}; priced: {out['priced_offers']:,}")
    print(f"vectorised price_training   : {vector_ms:8.2f} ms (best of {REPEATS * ROUNDS}, previous result kept)"
          f"  [{'PASS' if out['pass_time'] else 'FAIL'} < {TARGET_MS:.0f} ms]")
    print(f"  results dropped each call : {vector_dropped_ms:8.2f} ms (allocator worst case, information)")
    print(f"vectorised price_inference  : {inference_ms:8.2f} ms (information)")
    print(f"per-offer Python loop       : {loop_ms:8.1f} ms (timed on {LOOP_SUBSAMPLE:,} offers, scaled x"
          f"{N_OFFERS // LOOP_SUBSAMPLE} linearly)")
    print(f"ratio loop / vectorised     : {ratio:8.1f} x  [{'PASS' if out['pass_ratio'] else 'FAIL'} >= "
          f"{TARGET_RATIO:.0f} x]; same numbers: {same}")
    return out


if __name__ == "__main__":
    main()
    sys.exit(0)
