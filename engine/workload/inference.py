"""Inference kernel (:func:`price_inference`): continuous batching, latency, MIG slices, cost per token.

Part of :mod:`engine.workload`; the model and the references [n] are in its docstring.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from engine import network, power, serving
from engine.assumptions import Assumption
from engine.workload.common import (
    assumptions_with_policy,
    check_policy,
    first_reason_codes,
    missing_input_code,
    peak_tflops_used,
)
from engine.workload.data import MIG_COMPUTE_SLICES, MIG_MEMORY_SLICES
from engine.workload.inputs import (
    DEFAULT_ASSUMPTIONS,
    EngineAssumptions,
    InferenceService,
    MissingFabricPolicy,
)
from engine.workload.offers import OfferArrays
from engine.workload.results import Bound, ExclusionReason, InferenceResult
from engine.workload.serving_stacks import SERVING_STACK_SPECS


def _replica_tp(need_bytes: float, usable_gb: np.ndarray, max_tp: int, fixed: int | None) -> np.ndarray:
    """Smallest power of two of GPUs whose usable memory holds ``need_bytes`` (capped at ``max_tp``), or the fixed TP."""
    if fixed is not None:
        return np.full(usable_gb.shape, float(fixed))
    replicas_needed = (need_bytes / 1e9) / usable_gb
    tp = np.ones(usable_gb.shape)
    power_ = 1
    while power_ < max_tp:  # 1 + sum of 2^j [need > 2^j]
        tp += (replicas_needed > power_) * float(power_)
        power_ *= 2
    return tp


def price_inference(
    service: InferenceService,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> InferenceResult:
    """Throughput, latency, cost per million tokens and energy of ``service`` on every offer.

    Parameters
    ----------
    service : InferenceService
        Model shape (dense or MoE), request shape (prompt/output tokens), concurrency cap, precision readiness,
        optional request rate.
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (MFU, MBU per precision, usable memory, load ceiling, power, ...).
    missing_fabric : {"exclude", "assume_default"}
        Policy when a multi-GPU replica needs GPUs per node or the intra-node interconnect and the
        catalog does not state them (see :func:`price_training`).

    Returns
    -------
    InferenceResult
        ``time_hours`` / ``gpu_hours`` / ``cost`` / ``energy_kwh`` / ``emissions_kg`` for
        ``service.output_tokens_total`` generated tokens, plus per-token figures, latency (percentiles at the
        request rate) and the KV-cache capacity.

    Notes
    -----
    Continuous batching (:mod:`engine.serving`): concurrency ``b = min(batch_size, KV capacity)``; without a
    request rate the replica runs at full load ``X(b) = 1 / (t_pf + O t_step(b) / b)`` for the target
    utilisation; with a rate ``λ`` the engine sizes ``R = ceil(λ / (ρ_max X(b)))`` replicas and reports the
    latency percentiles at ``λ / R`` each.

    Examples
    --------
    GPT-J-sized model at batch 1 on one A100-80GB (C6: measured 111 tok/s, ceiling 170):

    >>> from engine.adapters import offer_arrays_from_records
    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 1}])
    >>> s = InferenceService(n_params=6e9, n_layers=28, n_kv_heads=16, head_dim=256, d_model=4096,
    ...                      prompt_tokens=128, output_tokens=128, batch_size=1,
    ...                      serving_stack="generic")
    >>> r = price_inference(s, a100)
    >>> round(1 / float(r.time_per_output_token_s[0]), 1), r.bound_text()[0]
    (108.5, 'memory')
    """
    assume = check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    svc = service
    P = float(svc.prompt_tokens)
    O = float(svc.output_tokens)  # noqa: E741
    d = float(svc.width)
    L = float(svc.n_layers)
    W = svc.params_in_memory * svc.weight_bytes_per_param
    kv_tok = svc.kv_cache_bytes_per_token
    kv_seq = kv_tok * (P + 0.5 * O)
    wl = serving.Workload(
        weight_bytes_total=W, active_fraction=svc.active_fraction, kv_bytes_per_seq=kv_seq,
        decode_flop_per_token=2.0 * svc.n_params + 4.0 * L * d * (P + 0.5 * O),
        prefill_flop_per_request=P * (2.0 * svc.n_params + 2.0 * L * d * P),
        prompt_tokens=P, output_tokens=O, n_layers=L, d_model=d, activation_bytes=2.0, kv_heads=float(svc.n_kv_heads))
    stack = SERVING_STACK_SPECS[svc.serving_stack]
    if stack.bandwidth_fraction is None:
        mbu = a.inference_mbu_fp8_fraction if svc.weight_bytes_per_param <= 1.0 else a.inference_mbu_fraction
        mbu_source = ("inference_mbu_fp8_fraction (8-bit weights)" if svc.weight_bytes_per_param <= 1.0
                      else "inference_mbu_fraction (16-bit weights)")
    else:
        mbu, mbu_source = stack.bandwidth_fraction, f"{stack.label}: {stack.calibrated_on}"
    overhead = L * stack.overhead_s_per_layer
    util = svc.target_utilisation_fraction
    batch = float(svc.batch_size)
    pm = a.power_model()
    with np.errstate(divide="ignore", invalid="ignore"):
        uses_fp8, peak_tflops = peak_tflops_used(svc.is_fp8_ready, o)
        usable_gb = o.memory_gb * a.inference_memory_usable_fraction
        tp = _replica_tp(W + batch * kv_seq, usable_gb, a.max_tensor_parallel_degree, svc.tensor_parallel_degree)
        kv_cap = serving.kv_capacity_sequences(o.memory_gb, tp, a.inference_memory_usable_fraction, wl)
        no_fit = ~(kv_cap >= 1.0)
        conc = np.clip(np.fmin(kv_cap, batch), 1.0, None)

        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        multi_gpu = tp > 1
        intra_missing = mk.intra_missing
        gpn = np.where(gpn_missing, a.assumed_gpus_per_node, o.gpus_per_node) if assume else o.gpus_per_node
        intra = o.intra_bandwidth_gb_per_s
        if assume:
            intra = np.where(intra_missing, a.assumed_intra_busbw_gb_per_s, intra)
        if mk.has_nvlink_bridge:
            intra = network.effective_intra_busbw_gb_per_s(o.intra_node_kind, intra, tp, a.pcie_busbw_gb_per_s)
        spec = serving.ReplicaSpec(tp, peak_tflops * (1e12 * a.inference_mfu_fraction),
                                   o.memory_bandwidth_tbps * (1e12 * mbu), intra,
                                   a.intra_node_latency_s, overhead)
        full_load = serving.full_load(conc, wl, spec)
        t_tp = serving.tp_allreduce_s(conc, wl, spec)

        rate = svc.request_rate_per_s
        if rate is None:
            replicas = np.ones(n_off)
            tok_s_gpu = full_load.requests_per_s * O / tp
            ttft, tpot = full_load.ttft_s, full_load.tpot_s
            latency = ttft + O * tpot
            pct = [np.full(n_off, np.nan)] * 6
            paid_share, load = util, np.ones(n_off)
        else:
            replicas = np.ceil(rate / (a.inference_max_load_fraction * full_load.requests_per_s))
            lp = serving.at_rate(rate / replicas, conc, wl, spec)
            tok_s_gpu = rate * O / (replicas * tp)
            ttft, tpot, latency = lp.ttft_mean_s, lp.tpot_s, lp.latency_mean_s
            pct = [lp.ttft_p50_s, lp.ttft_p90_s, lp.ttft_p99_s, lp.latency_p50_s, lp.latency_p90_s, lp.latency_p99_s]
            paid_share, load = 1.0, (rate / replicas) / full_load.requests_per_s

        # MIG: smallest slice that holds a single-GPU replica with its batch (the most instances per GPU):
        # 1g.10gb (1 of 8 memory slices, 7 per GPU), else 1g.20gb (2, 4 per GPU), else 3g.40gb (4, 2).
        replicas_needed = ((W + batch * kv_seq) / 1e9) / usable_gb
        slices_needed = replicas_needed * MIG_MEMORY_SLICES
        has_mig = (o.mig_max_instances >= MIG_COMPUTE_SLICES) & (replicas_needed <= 1.0)
        c1 = (slices_needed <= 1.0) & has_mig
        c2 = (slices_needed <= 2.0) & has_mig
        c4 = (slices_needed <= 4.0) & has_mig
        mig_code = np.int8(3) * c4.view(np.int8) - np.int8(2) * c2.view(np.int8) - c1.view(np.int8)
        mig_code -= (~c4).view(np.int8)  # -1 = none
        mig_inst = 2.0 * c4 + 2.0 * c2 + 3.0 * c1  # 2 / 4 / 7 instances
        mig_compute = (3.0 - 2.0 * c2) / MIG_COMPUTE_SLICES  # 3/7 or 1/7 of the SMs
        mig_memory = (4.0 - 2.0 * c2 - c1) / MIG_MEMORY_SLICES  # 4/8, 2/8 or 1/8 of memory bandwidth
        mig_spec = serving.ReplicaSpec(np.ones(n_off), spec.flops * mig_compute, spec.bytes_per_s * mig_memory,
                                       spec.intra_busbw_gb_per_s, 0.0, overhead)
        mig_tok_s_gpu = mig_inst * serving.full_load(batch, wl, mig_spec).requests_per_s * O

        # Exclusions.
        masks: list[tuple[ExclusionReason, np.ndarray | bool]] = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_inference),
            (ExclusionReason.DOES_NOT_FIT, no_fit),
            (ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, gpn < tp),
        ]
        if assume:
            assumed_default = multi_gpu & (gpn_missing | intra_missing)
        else:
            masks += [
                (ExclusionReason.GPUS_PER_NODE_NOT_STATED, multi_gpu & gpn_missing),
                (ExclusionReason.INTRA_NODE_NOT_STATED, multi_gpu & intra_missing),
            ]
            assumed_default = np.zeros(n_off, dtype=bool)
        code, excluded, nan_x = first_reason_codes(n_off, masks)

        total = svc.output_tokens_total
        tok_out = tok_s_gpu + nan_x
        gpu_hours = total / (3600.0 * paid_share * tok_out)
        time_hours = gpu_hours / (tp * replicas)
        cost = gpu_hours * o.price_per_gpu_hour
        kw = (paid_share * power.facility_power_kw_per_gpu(o.tdp_watts, load, pm)
              + (1.0 - paid_share) * power.facility_power_kw_per_gpu(o.tdp_watts, 0.0, pm))
        energy = gpu_hours * kw
        emissions = energy * o.grid_intensity_g_per_kwh / 1000.0
        if pm.embodied_kg_co2e_per_gpu is not None:
            emissions = emissions + gpu_hours * (pm.embodied_kg_co2e_per_gpu / pm.service_life_hours)
        per_million = 1e6 / total
        j_per_token = energy * (3.6e6 / total)
        mig_ok = c4 & ~excluded
        mig_tok_out = mig_tok_s_gpu + 0.0 / mig_ok
        t_step = full_load.step_s
        bound = (full_load.step_memory_s >= full_load.step_compute_s).view(np.int8) * np.int8(Bound.MEMORY)
        comm_bound = t_tp > np.maximum(full_load.step_memory_s, full_load.step_compute_s)
        bound = bound + comm_bound.view(np.int8) * (np.int8(Bound.COMMUNICATION) - bound)
        bound -= (bound + 1) * excluded.view(np.int8)
        mig_code = (mig_code + np.int8(1)) * mig_ok.view(np.int8) - np.int8(1)  # -1 unless usable
        ai = conc * wl.decode_flop_per_token / (
            serving.weights_read_bytes(conc, W, svc.active_fraction) + conc * kv_seq * serving.kv_replication(tp, wl))
        return InferenceResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost=cost,
            currency=o.currency,
            energy_kwh=energy,
            emissions_kg=emissions,
            bound=bound,
            communication_share_fraction=t_tp / t_step + nan_x,
            excluded=excluded,
            exclusion_code=code,
            missing_code=missing_input_code(excluded, o.price_per_gpu_hour, o.tdp_watts, o.grid_intensity_g_per_kwh),
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=assumptions_with_policy(missing_fabric, a, (
                Assumption("target_utilisation_fraction", util, "-", "InferenceService (user assumption)"),
                Assumption("kv_cache_bytes_per_token", kv_tok, "B", "2 x layers x KV heads x head_dim x bytes (std)"),
                Assumption("serving_stack", stack.label, "-", stack.calibrated_on),
                Assumption("memory_bandwidth_utilisation", mbu, "-", mbu_source),
                Assumption("fixed_time_per_layer_and_step", stack.overhead_s_per_layer, "s", mbu_source
                           if stack.bandwidth_fraction is None else f"{stack.label}: {stack.calibrated_on}"),
            )),
            tensor_parallel_degree=tp + nan_x,
            replicas=replicas + nan_x,
            concurrency=(conc if rate is None else lp.concurrency) + nan_x,
            kv_capacity_sequences=kv_cap + nan_x,
            tokens_per_s_per_gpu=tok_out,
            request_latency_s=latency + nan_x,
            time_to_first_token_s=ttft + nan_x,
            time_per_output_token_s=tpot + nan_x,
            ttft_p50_s=pct[0] + nan_x, ttft_p90_s=pct[1] + nan_x, ttft_p99_s=pct[2] + nan_x,
            latency_p50_s=pct[3] + nan_x, latency_p90_s=pct[4] + nan_x, latency_p99_s=pct[5] + nan_x,
            cost_per_million_tokens=cost * per_million,
            energy_kwh_per_million_tokens=energy * per_million,
            emissions_kg_per_million_tokens=emissions * per_million,
            energy_j_per_token=j_per_token,
            tokens_per_joule=1.0 / j_per_token,
            arithmetic_intensity_flop_per_byte=ai + nan_x,
            machine_balance_flop_per_byte=peak_tflops / o.memory_bandwidth_tbps + nan_x,
            mig_profile_code=mig_code,
            mig_instances_per_gpu=mig_inst * mig_ok,
            mig_tokens_per_s_per_gpu=mig_tok_out,
            mig_cost_per_million_tokens=o.price_per_gpu_hour * (1e6 / (3600.0 * util)) / mig_tok_out,
        )


#: Concurrency caps (sequences in flight per replica) the batch search tries: powers of two up to vLLM's default
#: ``--max-num-seqs`` of 256 (vLLM engine arguments, https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html).
BATCH_SEARCH_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def price_inference_within_latency(
    service: InferenceService,
    offers: OfferArrays,
    latency_target_s: float,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
    batch_sizes: tuple[int, ...] = BATCH_SEARCH_SIZES,
) -> InferenceResult:
    """:func:`price_inference` with the concurrency cap an operator would set on each offer, not a fixed one.

    An operator raises ``max_num_seqs`` while requests still finish within the latency target: per offer, the cap
    (of ``batch_sizes``) with the lowest cost per million tokens among those whose mean request latency meets
    ``latency_target_s`` (the larger cap on a tie); where none meets it, the cap with the lowest latency. The
    service's own ``batch_size`` is ignored. One engine call per cap, each vectorised over the offers; the chosen
    cap per offer is in ``concurrency`` (capped further by the KV cache, as in :func:`price_inference`).

    Examples
    --------
    >>> from engine.adapters import offer_arrays_from_records
    >>> o = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.5, "bf16_dense_tflops": 989.5,
    ...     "fp8_dense_tflops": 1979.0, "memory_gb": 80.0, "memory_bandwidth_tbps": 3.35, "tdp_watts": 700.0,
    ...     "gpus_per_node": 8, "intra_node": "NVLink-NVSwitch", "nvlink_gbps_bidirectional": 900.0}])
    >>> svc = InferenceService.from_preset("llama-3-8b", prompt_tokens=500, output_tokens=200, batch_size=1)
    >>> loose, tight = (price_inference_within_latency(svc, o, t) for t in (60.0, 2.0))
    >>> bool(loose.concurrency[0] > tight.concurrency[0]), bool(tight.request_latency_s[0] <= 2.0)
    (True, True)
    """
    if not batch_sizes:
        raise ValueError("batch_sizes must name at least one concurrency cap")
    runs = [price_inference(service.model_copy(update={"batch_size": int(b)}), offers, assumptions, missing_fabric)
            for b in batch_sizes]
    latency = np.stack([np.where(np.isnan(r.request_latency_s), np.inf, r.request_latency_s) for r in runs])
    cost = np.stack([r.cost_per_million_tokens for r in runs])
    meets = latency <= latency_target_s
    score = np.where(meets & ~np.isnan(cost), cost, np.inf)
    last = len(runs) - 1
    cheapest_meeting = last - np.argmin(score[::-1], axis=0)  # the larger cap on a tie
    fastest = np.argmin(latency, axis=0)
    pick = np.where(np.isfinite(score).any(axis=0), cheapest_meeting, fastest)
    cols = np.arange(pick.size)
    # field name -> value, one per InferenceResult field (arrays, the currency text, the assumptions tuple):
    # heterogeneous by field, so Any; dataclasses.replace checks the names at run time
    values: dict[str, Any] = {}
    for f in dataclasses.fields(runs[0]):
        first = getattr(runs[0], f.name)
        if isinstance(first, np.ndarray) and first.shape == pick.shape:
            values[f.name] = np.stack([getattr(r, f.name) for r in runs])[pick, cols]
        else:
            values[f.name] = first
    note = Assumption("batch_size", f"searched: {', '.join(str(b) for b in batch_sizes)}", "sequences",
                      "the cheapest concurrency cap per offer whose mean request latency meets the target "
                      f"({latency_target_s:g} s); caps up to vLLM's default --max-num-seqs 256 (docs.vllm.ai "
                      "engine arguments)")
    values["assumptions"] = (*runs[0].assumptions, note)
    return dataclasses.replace(runs[0], **values)
