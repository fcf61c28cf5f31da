"""engine.workload.price_inference_within_latency against a brute force over the caps, one offer at a time."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.adapters import offer_arrays_from_records
from engine.workload import (
    BATCH_SEARCH_SIZES,
    InferenceService,
    price_inference,
    price_inference_within_latency,
)
from tests.engine.validation_cases import A100, H100

L40S = {"price_eur_per_gpu_hour": 0.9, "bf16_dense_tflops": 362.0, "fp8_dense_tflops": 733.0, "memory_gb": 48.0,
        "memory_bandwidth_tbps": 0.864, "tdp_watts": 350.0, "gpus_per_node": 4, "intra_node": "PCIe"}
OFFERS = offer_arrays_from_records([H100, A100, L40S])


def _brute_force(svc: InferenceService, target_s: float) -> list[int]:
    """Per offer, the index of the cap an operator would pick, one cap and one offer at a time."""
    picks = []
    for i in range(OFFERS.n_offers):
        one = OFFERS.take([i])
        runs = [price_inference(svc.model_copy(update={"batch_size": b}), one) for b in BATCH_SEARCH_SIZES]
        lat = [float(r.request_latency_s[0]) for r in runs]
        cost = [float(r.cost_per_million_tokens[0]) for r in runs]
        ok = [k for k in range(len(runs)) if not math.isnan(lat[k]) and lat[k] <= target_s and not math.isnan(cost[k])]
        if ok:
            best = min(cost[k] for k in ok)
            picks.append(max(k for k in ok if cost[k] == best))  # the larger cap on a tie
        else:
            finite = [x if not math.isnan(x) else math.inf for x in lat]
            picks.append(int(np.argmin(finite)))
    return picks


@settings(max_examples=25, deadline=None)
@given(target_s=st.floats(0.5, 120.0), preset=st.sampled_from(["llama-3-8b", "llama-2-13b", "llama-2-70b"]),
       prompt=st.integers(16, 4000), output=st.integers(8, 1000))
def test_the_search_picks_what_a_brute_force_over_the_caps_picks(target_s, preset, prompt, output):
    svc = InferenceService.from_preset(preset, prompt_tokens=prompt, output_tokens=output, batch_size=1)
    r = price_inference_within_latency(svc, OFFERS, target_s)
    for i, k in enumerate(_brute_force(svc, target_s)):
        one = price_inference(svc.model_copy(update={"batch_size": BATCH_SEARCH_SIZES[k]}), OFFERS.take([i]))
        for field in ("cost_per_million_tokens", "request_latency_s", "concurrency", "tensor_parallel_degree"):
            np.testing.assert_allclose(getattr(r, field)[i], getattr(one, field)[0], rtol=1e-12, equal_nan=True)


def test_a_looser_target_never_costs_more_and_the_choice_meets_the_target():
    """Hand-checkable: the caps are nested, so a looser target can only add options."""
    svc = InferenceService.from_preset("llama-2-70b", prompt_tokens=1000, output_tokens=200, batch_size=16)
    costs = []
    for target in (5.0, 10.0, 30.0, 120.0):
        r = price_inference_within_latency(svc, OFFERS, target)
        meets = r.request_latency_s <= target
        costs.append(np.where(meets, r.cost_per_million_tokens, np.inf))
    assert np.isfinite(costs[-1]).all() and not np.isfinite(costs[0]).all()  # 5 s is out of reach somewhere
    for tighter, looser in zip(costs, costs[1:], strict=False):
        assert np.all(looser <= tighter + 1e-12)
    fixed = price_inference(svc, OFFERS)  # batch 16 on every offer
    loose = price_inference_within_latency(svc, OFFERS, 120.0)
    ok = fixed.request_latency_s <= 120.0
    assert np.all(loose.cost_per_million_tokens[ok] <= fixed.cost_per_million_tokens[ok] + 1e-12)
